"""What the site is: the environment it reads, its apps, middleware and templates, its languages
and static files."""

from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

# The project folder (azul_site/settings/ is two levels below it).
BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()
if (BASE_DIR / ".env").is_file():
    env.read_env(BASE_DIR / ".env")

DEBUG = env.bool("DEBUG", default=True)

if DEBUG:
    SECRET_KEY = env.str("SECRET_KEY", default="django-insecure-development-only-key-do-not-deploy")
else:
    SECRET_KEY = env.str("SECRET_KEY", default="")
    if not SECRET_KEY:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")

ALLOWED_HOSTS = env.list(
    "ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"] if DEBUG else []
)
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
SITE_URL = env.str("SITE_URL", default="http://127.0.0.1:8000").rstrip("/")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_filters",
    "allauth",
    "allauth.account",
    "axes",
    "core",
    "accounts",
    "games",
    "notifications",
    "ratings",
    "analysis",
    "chat",
    "events",
]

MIDDLEWARE = [
    # Request counts and latency by view (django-prometheus): first and last, so that they time
    # everything between.
    "django_prometheus.middleware.PrometheusBeforeMiddleware",
    # The request's id (X-Request-ID, or a new one) on every log line of the request and on the
    # response (core.ops.log_context).
    "core.ops.log_context.request_id_middleware",
    "django.middleware.security.SecurityMiddleware",
    # The Content-Security-Policy header on every response (CONTENT_SECURITY_POLICY below).
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Compresses pages and JSON where no proxy does (deploy/nginx.conf does it too; a response
    # already compressed is left alone). Below WhiteNoise, which serves its own precompressed
    # static files and whose images it would only squeeze again; above everything that reads or
    # writes a body. BREACH (guessing a secret from compressed sizes): the one secret a page
    # repeats is the CSRF token, and Django masks it afresh in every response (the documented
    # mitigation), so no two pages compress it alike.
    "django.middleware.gzip.GZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # After the session, before anything that reads the language (CommonMiddleware, views).
    "django.middleware.locale.LocaleMiddleware",
    # A NUL in the path, query or form (which PostgreSQL refuses in text) is a 400 before any
    # view queries with it; after the language, so the message is in the reader's.
    "core.http.nul_guard.nul_guard_middleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Signing in sets the language cookie to the player's profile's language.
    "accounts.middleware.sign_in_language_middleware",
    # The signed-in player's time zone for every time a page shows.
    "accounts.middleware.time_zone_middleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    # Sets the known-device cookie on a successful sign-in (accounts.lockout).
    "accounts.lockout.known_device_middleware",
    # Last, so that it turns a lockout flagged anywhere in the request into the 429 page.
    "axes.middleware.AxesMiddleware",
    "django_prometheus.middleware.PrometheusAfterMiddleware",
]

ROOT_URLCONF = "azul_site.urls"
WSGI_APPLICATION = "azul_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                # LANGUAGE_CODE and LANGUAGES, for <html lang> and the language switcher.
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "azul_site.context_processors.nav_urls",
                "notifications.context_processors.games_waiting",
            ],
        },
    },
]

# Languages. A visitor's language is the one they chose with the switcher in the header (a
# cookie, set by `i18n/setlang/`), else the first of LANGUAGES that their browser asks for
# (Accept-Language), else LANGUAGE_CODE. Emails go in the recipient's Profile.language.
# Translations live in locale/ (`make messages` updates and compiles them; the compiled .mo
# files are committed, so a machine without gettext serves them).
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("ko", "한국어")]
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGE_COOKIE_AGE = 365 * 24 * 60 * 60
LANGUAGE_COOKIE_SAMESITE = "Lax"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# A relative STATIC_ROOT is in the project folder, wherever the command runs from.
STATIC_ROOT = BASE_DIR / env.str("STATIC_ROOT", default="staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        # The manifest needs `collectstatic`; development and tests serve files as they are.
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "core.pages.storage.StaticStorage"
    },
}
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG
MEDIA_ROOT = BASE_DIR / "media"
