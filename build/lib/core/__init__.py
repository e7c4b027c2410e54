"""Plumbing every app shares, and no domain: the API's error shape and pages, the cache helpers,
how a task is sent, text helpers. It imports no app of the site."""
