"""Claims and checked properties: numbers typed in a chapter's texts and propositions' numeric
properties, decided by the worker as answers are (`syntax`, `found`, `decide`, `requests`)."""
