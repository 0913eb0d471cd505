"""The readers' site: books, chapters and releases as the seed page lays them out."""
