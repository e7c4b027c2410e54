"""Helpers for the site's HTML pages: a form's answer beside its form (`form_answers`), links at
a string join's cost (`links`), names in sentences (`text`), cached markup with holes for the
CSRF token (`holes`), pages whose count is cached (`pagination`) and the static files' URLs
(`storage`)."""
