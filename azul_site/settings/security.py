"""Production hardening: HTTPS, cookies, HSTS, framing and the Content-Security-Policy."""

from azul_site.settings.base import DEBUG, env

# Production hardening; each switch can be turned off from the environment, e.g. behind a
# proxy that already redirects to HTTPS.
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=not DEBUG)
# The load balancer's and the scraper's plain-HTTP requests to the process itself.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
if env.bool("SECURE_PROXY_SSL_HEADER", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Sessions are read on every page: served from the cache, kept in the database (which serves
# them while Redis is down).
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
SESSION_COOKIE_SECURE = env.bool("SECURE_COOKIES", default=not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
# The language choice is no secret, but sent over plain HTTP it would say who is browsing.
LANGUAGE_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=not DEBUG)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=not DEBUG)
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# What a page may load and run: only this site's own files. No inline script and no eval, so an
# injected <script> or onclick= does not run; pages pass data to their scripts in data-
# attributes or json_script. img-src allows data: for the small SVG icons inlined in the CSS.
# The API's docs page (Swagger UI, azul_site/urls.py) loosens style-src for itself alone.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        # The installable app's service worker and manifest (azul_site/pwa.py): said outright,
        # though default-src allows them, so that a change there cannot drop them unnoticed.
        "worker-src": ["'self'"],
        "manifest-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
    }
}
