"""Settings, read from the environment so one file serves a laptop, CI and production.

With nothing set, the site runs on an SQLite file with Celery tasks executed in-process
(a first look with no services). DATABASE_URL and CELERY_BROKER_URL switch to PostgreSQL
and a real broker.
"""

from pathlib import Path

from environs import Env

BASE_DIR = Path(__file__).resolve().parent.parent
env = Env()

DEBUG = env.bool("DJANGO_DEBUG", True)
# Production (DJANGO_DEBUG=0) refuses to start without its own secret key.
SECRET_KEY = (
    env.str("DJANGO_SECRET_KEY")
    if not DEBUG
    else env.str("DJANGO_SECRET_KEY", "dev-only-insecure-key")
)
# Production names its own hosts; development answers on loopback (and Django's test client).
ALLOWED_HOSTS = (
    env.list("DJANGO_ALLOWED_HOSTS")
    if not DEBUG
    else env.list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"])
)
CSRF_TRUSTED_ORIGINS: list[str] = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", [])
CSRF_FAILURE_VIEW = "curriculum.site.errors.csrf_failure"  # the site's page, not Django's bare one

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.postgres",  # full-text search (curriculum/domain/search.py)
    "axes",
    "allauth",  # reader accounts (below)
    "allauth.account",
    "curriculum",
]

MIDDLEWARE = [
    "curriculum.unread_bodies.UnreadBodyMiddleware",  # outermost: after every answer is made
    "django.middleware.security.SecurityMiddleware",
    "corsheaders.middleware.CorsMiddleware",  # before anything that answers: CORS below
    "curriculum.api.middleware.ApiShapeMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "curriculum.reader_bodies.ReaderBodyMiddleware",  # after auth (who sends), its 413 headed
    "axes.middleware.AxesMiddleware",
    "curriculum.doors.WritingDoorMiddleware",
]

ROOT_URLCONF = "curriculum.urls"
WSGI_APPLICATION = "curriculum.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.csp",
            ],
        },
    },
]

DATABASES = {
    "default": env.dj_db_url("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
}
DATABASES["default"]["TEST"] = {"NAME": env.str("TEST_DATABASE_NAME", None)}
# Keep connections across requests and tasks (the verifier's cost is mostly connecting).
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DB_CONN_MAX_AGE", 60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Parameters bound by the server, so psycopg prepares a query run again on the connection
    # (its second run on: the hot reads' planning then costs the database once per session).
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        server_side_binding=True, prepare_threshold=1
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# axes first: a locked-out address is refused before any password is checked, on admin's login
# and the readers' (allauth's, which calls the same authenticate()) alike. allauth's backend is
# Django's ModelBackend that also finds a username whatever its case, as sign-up keeps them.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
# Throttle logins (admin's and readers'): five failures from one address, whatever usernames they
# tried, lock that address for a cool-off (so spraying many usernames is slowed too). The
# username alone is not a key: nobody elsewhere can lock a colleague out by failing as them.
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = env.float("AXES_COOLOFF_HOURS", 0.25)
AXES_LOCKOUT_PARAMETERS = ["ip_address"]
AXES_RESET_ON_SUCCESS = True
# Failures are kept for the lockout; successful logins are not logged (address, browser): an
# account keeps only what its reader can export and delete (curriculum/domain/readers.py).
AXES_DISABLE_ACCESS_LOG = True
AXES_LOCKOUT_TEMPLATE = "429.html"
# The address counted is the client's, through the proxies in front (NUM_PROXIES, below).
AXES_CLIENT_IP_CALLABLE = "curriculum.clients.client_address"
# Proxies in front of Django that append the address they saw to X-Forwarded-For: `make serve`
# runs one (nginx) and sets 1; add one for each proxy put before it. The client's address is
# then the NUM_PROXIES-th entry from the right, for the login lockout, the API's throttle and
# the practice checks alike; with 0 it is REMOTE_ADDR and the header is never believed.
NUM_PROXIES = env.int("NUM_PROXIES", 0)

# ---------------------------------------------------------------- Reader accounts
# django-allauth under /accounts/: sign up, log in and out, change or reset a password. A
# username and a password; an email is optional and never verified (it is only where a reset is
# sent). An account made there is never staff (curriculum/site/account_adapter.py): admin stays
# for the staff made in admin or by createsuperuser. Its pages extend the site's
# (templates/allauth/layouts/base.html) and run no script.
ACCOUNT_ADAPTER = "curriculum.site.account_adapter.ReaderAccountAdapter"
ACCOUNT_LOGIN_METHODS = {"username"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "email", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "none"
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "site:account"  # the reader's progress
ACCOUNT_LOGOUT_REDIRECT_URL = "account_login"  # which says "You have signed out."
# allauth counts these in the shared cache (CACHES["default"]) per client address, the address
# curriculum.clients finds (through NUM_PROXIES); its other limits keep allauth's defaults
# (logins 30/m per address, failed logins 10/m per address and 5 in 5 min per username, password
# changes 5/m per account). Failed logins also count for the axes lockout above.
ACCOUNT_RATE_LIMITS = {
    # each sign-up makes an account and an Argon2 hash
    "signup": env.str("ACCOUNT_SIGNUP_RATE", "10/h/ip"),
    # each request sends a mail to an address someone typed
    "reset_password": env.str("ACCOUNT_PASSWORD_RESET_RATE", "5/h/ip,3/h/key"),
}
# Mail (password resets; Django 6.1's MAILERS, which replace the EMAIL_* settings): SMTP at
# EMAIL_HOST; in development with no EMAIL_HOST, written to the console instead. Production
# never prints mail (a reset link in a log is a password): with no EMAIL_HOST it is the host's
# own mail server, localhost:25.
_MAIL_HOST = env.str("EMAIL_HOST", "" if DEBUG else "localhost")
MAILERS = {
    "default": (
        {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {
                "host": _MAIL_HOST,
                "port": env.int("EMAIL_PORT", 25),
                "username": env.str("EMAIL_HOST_USER", ""),
                "password": env.str("EMAIL_HOST_PASSWORD", ""),
                "use_tls": env.bool("EMAIL_USE_TLS", False),
                "timeout": env.float("EMAIL_TIMEOUT", 10.0),
            },
        }
        if _MAIL_HOST
        else {"BACKEND": "django.core.mail.backends.console.EmailBackend"}
    )
}
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", "curriculum@localhost")

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# Celery: with no broker configured, tasks run in-process (the embedded default).
CELERY_TASK_ALWAYS_EAGER = not env.str("CELERY_BROKER_URL", "")
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", "") or "memory://localhost/"
CELERY_TASK_EAGER_PROPAGATES = False
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
# A task is acknowledged only once it has finished, and a worker killed mid-task gives it back.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = env.int("VERIFY_TIME_LIMIT", 60)
# always below the hard limit, or the hard limit would never be the one that fires
CELERY_TASK_SOFT_TIME_LIMIT = min(max(CELERY_TASK_TIME_LIMIT - 10, 5), CELERY_TASK_TIME_LIMIT - 0.5)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Publishing must fail fast when the broker is down: a save never waits on Redis; its verdict
# stays pending and the sweep sends it once the broker is back.
CELERY_BROKER_CONNECTION_TIMEOUT = env.float("VERIFY_BROKER_TIMEOUT", 1.0)
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}
CELERY_BROKER_TRANSPORT_OPTIONS = {
    # An unacknowledged task (its worker died) is handed out again after this many seconds.
    "visibility_timeout": env.int("VISIBILITY_TIMEOUT", 300),
    "socket_connect_timeout": CELERY_BROKER_CONNECTION_TIMEOUT,
    "socket_timeout": env.float("VERIFY_BROKER_SOCKET_TIMEOUT", 1.5),
    "max_retries": 1,
    # Redis keeps a list per priority and a worker takes from the first that holds a task:
    # a check's level (curriculum/domain/verification/dispatch.py) is its priority, 0 first.
    "priority_steps": list(range(10)),
}
# The engine's own run of one check (instance 0 and every reader instance) may use this much CPU
# time, measured around the run: neither the queue, nor a loaded machine, nor a retried batch
# counts. Past it the verdict is an error. Far above what LIMIT_PROBLEM_WORK lets a problem need.
VERIFY_ENGINE_SECONDS = env.float("VERIFY_ENGINE_SECONDS", 30.0)
# A batch decides checks for this long (the clock: it is scheduling, not a verdict), then hands
# the rest on behind what others asked for meanwhile: a save made during a bulk re-verification
# waits at most about this long for a worker (5 s had kept one waiting 4 s behind heavy checks;
# each hand-on costs a worker some 20 ms).
VERIFY_SLICE_SECONDS = env.float("VERIFY_SLICE_SECONDS", 1.0)
# Pending verdicts older than this are re-enqueued by the periodic sweep.
VERIFY_SWEEP_AFTER_SECONDS = env.float("VERIFY_SWEEP_AFTER_SECONDS", 120.0)
# Readers practise a generated problem on instances 1..N; the verifier checks each one computes.
PRACTICE_INSTANCES = env.int("PRACTICE_INSTANCES", 20)
# Checks asked for together (import, verify_all, a chapter, the sweep) go this many to a task:
# each task costs its worker some 20 ms besides the checks (bench/verify: 200 decide about a
# fifth more per second than 100 on two workers).
VERIFY_BATCH_SIZE = env.int("VERIFY_BATCH_SIZE", 200)
# A check whose run never finishes (killed by the hard time limit) is an error after this many.
VERIFY_MAX_ATTEMPTS = env.int("VERIFY_MAX_ATTEMPTS", 3)
# PDFs of chapters and books (domain/printing.py), printed by the worker with headless Chromium:
# where it is (absent: pages say a PDF is not available), how long one print may take before it
# is killed and recorded as failed, the largest PDF kept, and when a PDF asked for and not made
# (its task lost) is asked for again by the sweep.
PDF_CHROMIUM = env.str("PDF_CHROMIUM", "/usr/bin/chromium")
PDF_PRINT_SECONDS = env.float("PDF_PRINT_SECONDS", 60.0)
PDF_MAX_BYTES = env.int("PDF_MAX_BYTES", 50 * 2**20)
PDF_SWEEP_AFTER_SECONDS = env.float("PDF_SWEEP_AFTER_SECONDS", 300.0)
CELERY_BEAT_SCHEDULE = {
    "sweep-pending-verdicts": {
        "task": "curriculum.tasks.sweep_pending_verdicts",
        "schedule": env.float("VERIFY_SWEEP_EVERY_SECONDS", 60.0),
    },
    "sweep-webhooks": {
        "task": "curriculum.tasks.sweep_webhooks",
        "schedule": env.float("WEBHOOK_SWEEP_EVERY_SECONDS", 60.0),
    },
    "sweep-pdfs": {
        "task": "curriculum.tasks.sweep_pdfs",
        "schedule": env.float("PDF_SWEEP_EVERY_SECONDS", 60.0),
    },
    # Scheduled publishes are run this often: one set for 10:00 runs within this after 10:00.
    "publish-due-chapters": {
        "task": "curriculum.tasks.publish_due_chapters",
        "schedule": env.float("SCHEDULE_PUBLISH_EVERY_SECONDS", 60.0),
    },
}
# Webhooks (curriculum/domain/webhooks.py), sent by the worker: how long one attempt may take to
# resolve the host and connect, then to send and have the whole answer (a server that trickles it
# is cut off), the attempts before giving up, the first retry's delay (doubling each time, up to
# the longest), and how much of an answer the delivery log keeps.
WEBHOOK_CONNECT_TIMEOUT_SECONDS = env.float("WEBHOOK_CONNECT_TIMEOUT_SECONDS", 3.0)
WEBHOOK_READ_TIMEOUT_SECONDS = env.float("WEBHOOK_READ_TIMEOUT_SECONDS", 10.0)
WEBHOOK_MAX_ATTEMPTS = env.int("WEBHOOK_MAX_ATTEMPTS", 8)
WEBHOOK_BACKOFF_SECONDS = env.float("WEBHOOK_BACKOFF_SECONDS", 30.0)
WEBHOOK_BACKOFF_MAX_SECONDS = env.float("WEBHOOK_BACKOFF_MAX_SECONDS", 3600.0)
WEBHOOK_RESPONSE_EXCERPT_CHARS = env.int("WEBHOOK_RESPONSE_EXCERPT_CHARS", 1000)
# Hosts, as written in an endpoint's URL, that may resolve to loopback, private, link-local or
# other addresses that are not public: a developer's or a test's local receiver. Any other host
# must resolve to public addresses only, at registration and at each delivery.
WEBHOOK_ALLOWED_PRIVATE_HOSTS: list[str] = env.list("WEBHOOK_ALLOWED_PRIVATE_HOSTS", [])

# Throttles and cached bodies must be shared by every web process. In production that is Django's
# Redis cache: CACHE_URL, else the Redis the broker is (keys apart under their prefix), where a
# throttle's count is one atomic INCR; with no Redis at all, Django's database cache (`make serve`
# creates its table), whose counts are a read and a write. The embedded default's single process
# keeps them in memory.
_REDIS = env.str("CACHE_URL", "") or (
    CELERY_BROKER_URL if CELERY_BROKER_URL.startswith(("redis://", "rediss://")) else ""
)
_LOCAL_CACHE = DEBUG and not env.str("CACHE_URL", "")  # make run: each process's own memory
CACHES = {
    "default": (
        {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
        if _LOCAL_CACHE
        else {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": _REDIS,
            "KEY_PREFIX": "cache",
        }
        if _REDIS
        else {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "curriculum_cache",
            "OPTIONS": {"MAX_ENTRIES": env.int("CACHE_MAX_ENTRIES", 100_000)},
        }
    ),
    # Rendered text and typeset formulas: shared in Redis where there is one, else each
    # process's own (a database cache writes key by key, and storing a large chapter's 20,000
    # formulas there took minutes, far longer than typesetting them)
    "markup": (
        {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": _REDIS,
            "KEY_PREFIX": "markup",
        }
        if _REDIS and not _LOCAL_CACHE
        else {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "markup",
            "OPTIONS": {"MAX_ENTRIES": env.int("MARKUP_CACHE_ENTRIES", 20_000)},
        }
    ),
}
LOCAL_BODY_CACHE_BYTES = env.int("LOCAL_BODY_CACHE_BYTES", 32 * 1024 * 1024)

# Content-Security-Policy (Django's built-in): everything from this origin, nothing inline.
SECURE_CSP = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "font-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'none'"],
    "frame-ancestors": ["'none'"],
    "form-action": ["'self'"],
}

if not DEBUG:
    SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = env.int("DJANGO_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    # Trust X-Forwarded-Proto only behind a proxy that sets it (else a client could claim HTTPS).
    if env.bool("DJANGO_BEHIND_TLS_PROXY", False):
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"refusals": {"()": "curriculum.refusal_logs.RefusalsWithoutTraceback"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["refusals"]}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", "WARNING")},
}

# ---------------------------------------------------------------- Limits
# Everything an author or client sends is bounded here, once; each is refused with its path
# and a clear message (README, Configuration). Content stored before a limit existed is shown
# inert or left out with a note, never a 500.
LIMIT_SVG_DEPTH = env.int("LIMIT_SVG_DEPTH", 40)  # nested elements in one figure
LIMIT_SVG_BYTES = env.int("LIMIT_SVG_BYTES", 512 * 1024)  # one figure's source
LIMIT_MEDIA_BYTES = env.int("LIMIT_MEDIA_BYTES", 2 * 1024 * 1024)  # one media library image
LIMIT_MEDIA_SIDE = env.int("LIMIT_MEDIA_SIDE", 4000)  # its width and its height, in pixels
LIMIT_BIBLIOGRAPHY_BYTES = env.int("LIMIT_BIBLIOGRAPHY_BYTES", 256 * 1024)  # a book's BibTeX
LIMIT_BIBLIOGRAPHY_ENTRIES = env.int("LIMIT_BIBLIOGRAPHY_ENTRIES", 1000)  # works in it
LIMIT_YAML_DEPTH = env.int("LIMIT_YAML_DEPTH", 40)  # nested mappings and lists in a file
LIMIT_JSON_DEPTH = env.int("LIMIT_JSON_DEPTH", 40)  # nested objects and arrays in an API body
LIMIT_API_BODY_BYTES = env.int("LIMIT_API_BODY_BYTES", 2 * 1024 * 1024)  # 413 beyond
# Behind a proxy (NUM_PROXIES), a body an answer leaves unread (a refusal) is read and dropped up
# to this size before the answer goes (curriculum/unread_bodies.py): deploy/nginx's
# client_max_body_size, 16m, the most nginx passes on.
LIMIT_UNREAD_BODY_BYTES = env.int("LIMIT_UNREAD_BODY_BYTES", 16 * 1024 * 1024)
# One chapter or book file, and what a chapter stores written out as its export (each alias
# counted where it stands): whatever is stored can be exported and imported again.
LIMIT_CHAPTER_FILE_BYTES = env.int("LIMIT_CHAPTER_FILE_BYTES", 2 * 1024 * 1024)
LIMIT_CHAPTER_NUMBERS = env.int("LIMIT_CHAPTER_NUMBERS", 200_000)  # in a chapter, aliases too
# what its problems' generators draw at one instance, all together: checking a document draws
# them, in the request (each input alone may draw 65,536)
LIMIT_CHAPTER_GENERATED = env.int("LIMIT_CHAPTER_GENERATED", 2**20)
LIMIT_FORMULA_EXPAND = env.int("LIMIT_FORMULA_EXPAND", 1000)  # KaTeX maxExpand (macro uses)
LIMIT_FORMULA_TOKENS = env.int("LIMIT_FORMULA_TOKENS", 20_000)  # what its macros produce
LIMIT_FORMULA_CHARS = env.int("LIMIT_FORMULA_CHARS", 20_000)  # one formula's TeX
LIMIT_FORMULA_HTML_BYTES = env.int("LIMIT_FORMULA_HTML_BYTES", 100_000)  # one typeset formula
# Quotes, lists and footnotes nested in one another in a text; the Markdown parser is built to
# read a level past it, so a deeper text is refused rather than cut short.
LIMIT_MARKDOWN_NESTING = env.int("LIMIT_MARKDOWN_NESTING", 10)
# All of a chapter's rendered text and figures together: its page and API body stay near this.
LIMIT_CHAPTER_HTML_BYTES = env.int("LIMIT_CHAPTER_HTML_BYTES", 4 * 1024 * 1024)
LIMIT_DESCRIPTION_CHARS = env.int("LIMIT_DESCRIPTION_CHARS", 5_000)  # a book's, before KaTeX
LIMIT_DESCRIPTION_HTML_BYTES = env.int("LIMIT_DESCRIPTION_HTML_BYTES", 64 * 1024)  # as typeset
# A chapter's strand items, figures, apparatus links, notation rows, propositions and problems
# together: admin's chapter page shows and saves all of them as one form, within the timeout.
LIMIT_CHAPTER_PARTS = env.int("LIMIT_CHAPTER_PARTS", 300)
# What placeholders ({{ inputs.x }}) typeset: matrix entries in one text and in a chapter
LIMIT_CHAPTER_FORMULAS = env.int("LIMIT_CHAPTER_FORMULAS", 20_000)  # $...$ in a chapter or save
LIMIT_VALUE_TYPESET_ENTRIES = env.int("LIMIT_VALUE_TYPESET_ENTRIES", 400)  # one placeholder's
LIMIT_TEXT_TYPESET_ENTRIES = env.int("LIMIT_TEXT_TYPESET_ENTRIES", 1200)
LIMIT_CHAPTER_TYPESET_ENTRIES = env.int("LIMIT_CHAPTER_TYPESET_ENTRIES", 12_000)
# Derived, not set: admin posts a chapter as one form, which must take a chapter at the limits
# above. A part's row posts at most 10 fields (a proposition: its number, label, check, texts,
# id, chapter and delete box) and the page under 100 of its own (the chapter's fields, each list's
# management form, the empty rows "Add another" copies); a browser sends each byte of a file's
# text as at most 6 (a line end as CRLF, percent-encoded; the problem page's JSON boxes, a matrix
# row a line, cost under that), and each field's name and short value within 64.
DATA_UPLOAD_MAX_NUMBER_FIELDS = 10 * LIMIT_CHAPTER_PARTS + 100
DATA_UPLOAD_MAX_MEMORY_SIZE = 6 * LIMIT_CHAPTER_FILE_BYTES + 64 * DATA_UPLOAD_MAX_NUMBER_FIELDS
LIMIT_ANSWER_CHARS = env.int("LIMIT_ANSWER_CHARS", 20_000)  # one answer, typed or compact JSON
LIMIT_REPORT_CHARS = env.int("LIMIT_REPORT_CHARS", 4000)  # a reader's report on an exercise
# Derived, not set: a body sent by anyone but staff (a staff session, or below /api/ a token),
# who alone send chapters. A reader's largest is a report with its answer, each character sent
# as at most 12 bytes (four UTF-8 bytes percent-encoded, or a JSON escape), and 64 KiB for the
# rest. Parsing a form of DATA_UPLOAD_MAX_MEMORY_SIZE held several times its size, which a
# worker's allocator kept; measuring a JSON body of LIMIT_API_BODY_BYTES took seconds.
LIMIT_READER_BODY_BYTES = 12 * (LIMIT_ANSWER_CHARS + LIMIT_REPORT_CHARS) + 64 * 1024
LIMIT_MISTAKE_WORK = env.int("LIMIT_MISTAKE_WORK", 10**9)  # misconceptions at one instance
LIMIT_PROBLEM_HINTS = env.int("LIMIT_PROBLEM_HINTS", 10)  # one problem's hints
LIMIT_HINT_CHARS = env.int("LIMIT_HINT_CHARS", 1000)  # one hint's text
LIMIT_PROBLEM_FEEDBACK = env.int("LIMIT_PROBLEM_FEEDBACK", 20)  # its feedback on wrong answers
LIMIT_FEEDBACK_CHARS = env.int("LIMIT_FEEDBACK_CHARS", 1000)  # one feedback's text
SCHEDULE_PUBLISH_MAX_DAYS = env.int(
    "SCHEDULE_PUBLISH_MAX_DAYS", 366
)  # how far ahead a publish may be set
LIMIT_REVIEW_TEXT_CHARS = env.int("LIMIT_REVIEW_TEXT_CHARS", 4000)  # a review note, comments, notes
LIMIT_REVIEW_QUEUE_PAGE = env.int("LIMIT_REVIEW_QUEUE_PAGE", 50)  # review requests on one page
LIMIT_REPORTS_SHOWN = env.int("LIMIT_REPORTS_SHOWN", 50)  # beside a problem in admin
LIMIT_OPEN_EDITORS_SHOWN = env.int("LIMIT_OPEN_EDITORS_SHOWN", 5)  # named on a chapter's page
CHAPTER_OPEN_SECONDS = env.int("CHAPTER_OPEN_SECONDS", 30 * 60)  # an opened page counts as open
LIMIT_SEARCH_CHARS = env.int("LIMIT_SEARCH_CHARS", 200)  # one search, spaces collapsed
LIMIT_SEARCH_TERMS = env.int("LIMIT_SEARCH_TERMS", 16)  # its words and quoted phrases
LIMIT_SEARCH_PAGE = env.int("LIMIT_SEARCH_PAGE", 50)  # results in one answer (API `limit`)
LIMIT_SEARCH_OFFSET = env.int("LIMIT_SEARCH_OFFSET", 1000)  # results skipped (`offset`)
# A chapter's history (admin's Revisions page): the newest kept, the oldest pruned; a compare
# lists so many changed paths, each value cut to so many characters.
REVISIONS_KEPT = env.int("REVISIONS_KEPT", 50)
LIMIT_REVISION_CHANGES_SHOWN = env.int("LIMIT_REVISION_CHANGES_SHOWN", 300)
LIMIT_REVISION_VALUE_CHARS = env.int("LIMIT_REVISION_VALUE_CHARS", 2000)
LIMIT_CHAPTER_CLAIMS = env.int("LIMIT_CHAPTER_CLAIMS", 1000)  # claims and properties in a chapter
LIMIT_PROPERTY_INSTANCES = env.int("LIMIT_PROPERTY_INSTANCES", 200)  # one property's instances
LIMIT_CLAIM_WORK = env.int("LIMIT_CLAIM_WORK", 10**8)  # engine work of one claim or property
# The engine work one problem may ask of the verifier, estimated from its shapes before anything
# runs (attention/work.py; instance 0 and, when generated, every reader instance): about 3 to 10 s
# of one core at the limit.
LIMIT_PROBLEM_WORK = env.int("LIMIT_PROBLEM_WORK", 2 * 10**10)
# The engine work all of a chapter's problems may ask together, so one save or file cannot
# hold a worker for long (20 problems each just under LIMIT_PROBLEM_WORK took 248 s of a core).
LIMIT_CHAPTER_WORK = env.int("LIMIT_CHAPTER_WORK", 10 * LIMIT_PROBLEM_WORK)
# The numbers one evaluation of a problem makes, every output of its operation together (what
# it asks may be a part): a worker holds them, and a few times as many while it computes them.
LIMIT_PROBLEM_VALUES = env.int("LIMIT_PROBLEM_VALUES", 2**25)

# ---------------------------------------------------------------- API
# "ninja" as an app serves the docs' Swagger UI from this site's static files, so /api/v1/docs
# needs nothing beyond the strict CSP above ('self' scripts and styles, no CDN).
INSTALLED_APPS += ["ninja"]
# Anonymous reads per client address, counted in the shared cache (curriculum/clients.py).
API_ANON_RATE = env.str("API_ANON_RATE", "120/min")
TOKEN_MAX_DAYS = env.int("TOKEN_MAX_DAYS", 90)  # the longest an API token may live, in days
# Readers' answer checks per client address (site form and API alike): each runs the engine.
PRACTICE_CHECK_RATE = env.str("PRACTICE_CHECK_RATE", "30/min")
# Reports on an exercise per client address: each is a row authors read.
PRACTICE_REPORT_RATE = env.str("PRACTICE_REPORT_RATE", "5/h")
# Every API list (curriculum/api/pages.py): items in one page by default, and at most (`limit`).
LIMIT_API_PAGE_DEFAULT = env.int("LIMIT_API_PAGE_DEFAULT", 50)
LIMIT_API_PAGE = env.int("LIMIT_API_PAGE", 100)
LIMIT_API_OFFSET = env.int("LIMIT_API_OFFSET", 100000)  # items skipped (`offset`): 422 beyond
NINJA_PAGINATION_PER_PAGE = LIMIT_API_PAGE_DEFAULT
NINJA_PAGINATION_MAX_LIMIT = LIMIT_API_PAGE
# CORS (django-cors-headers): a page on another origin may read the public API, never with the
# reader's cookies (no credentials) and never write: a preflight grants GET and HEAD only, so a
# JSON body or a token-bearing POST from another origin is never sent. API_CORS_ORIGINS is "*"
# (any origin: the reads are public anyway), "" (none) or a comma-separated list of origins.
INSTALLED_APPS += ["corsheaders"]
API_CORS_ORIGINS = env.list("API_CORS_ORIGINS", ["*"])
CORS_ALLOW_ALL_ORIGINS = API_CORS_ORIGINS == ["*"]
CORS_ALLOWED_ORIGINS = [] if CORS_ALLOW_ALL_ORIGINS else API_CORS_ORIGINS
CORS_URLS_REGEX = r"^/api/v1/"
CORS_ALLOW_METHODS = ("GET", "HEAD", "OPTIONS")
CORS_ALLOW_HEADERS = ("accept", "authorization", "if-none-match", "if-modified-since")
CORS_ALLOW_CREDENTIALS = False
CORS_EXPOSE_HEADERS = (
    "ETag",
    "Link",
    "Retry-After",
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "RateLimit-Reset",
)
