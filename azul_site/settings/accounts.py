"""Accounts: sign-up and sign-in (allauth), its rate limits, lockouts (axes), the client's
address."""

from datetime import timedelta

from azul_site.settings.base import DEBUG, env

# Accounts.
AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    # First: axes refuses a locked-out username+IP before any password is hashed.
    "axes.backends.AxesStandaloneBackend",
    # Then the per-address and per-account limits (accounts.lockout), for the site's login and
    # the admin's alike; after axes, so that what axes refuses is not counted here.
    "accounts.lockout.LoginLimitBackend",
    # allauth's: login by username or email.
    "allauth.account.auth_backends.AuthenticationBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "home"

ACCOUNT_LOGIN_METHODS = {"username", "email"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "email*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_CHANGE_EMAIL = True
# Following the emailed link signs the player in, in the browser (session) they signed up in and
# within ACCOUNT_LOGIN_TIMEOUT (allauth's 15 minutes) of signing up; anywhere else, or later, it
# confirms the address and the player logs in with their password (accounts.adapter says so).
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_CONFIRM_EMAIL_ON_GET = False
# The reset form mails only addresses of accounts: no "unknown account" email to whatever
# address is typed in (which would let anyone mail anyone from the site). It says the same
# either way, so it does not tell who has an account.
ACCOUNT_EMAIL_UNKNOWN_ACCOUNTS = False
ACCOUNT_LOGOUT_REDIRECT_URL = "home"
# Emails name the site by SITE_NAME, subject prefix included ("[Azul] "): accounts.adapter.
ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
# Sign-up also takes the browser's time zone; login caps its field's length.
ACCOUNT_FORMS = {"signup": "accounts.forms.SignupForm", "login": "accounts.forms.LoginForm"}
ACCOUNT_DEFAULT_HTTP_PROTOCOL = "http" if DEBUG else "https"
# allauth's defaults otherwise: per address, 5 password-reset emails a minute and 1 confirmation
# email per 3 minutes; 20 sign-ups a minute per IP; 10 email changes a minute per player. They
# hold with Redis down, counted in the database by every process alike
# (core.outages.cache.RedisCache).
ACCOUNT_RATE_LIMITS = {
    # Failed logins are limited in accounts.lockout (an authentication backend, so the admin's
    # login has the same limits), not by allauth's form: its per-login limit refused the right
    # password too, from anywhere, so ten guesses from one address locked the owner out.
    "login_failed": "",
    # Per client address, whatever the account (accounts.lockout): looser than axes' per
    # (account, address) lockout, so that axes answers first.
    "login_failed_address": "20/m/ip",
    # Per account, all addresses together, except from the account's known devices (browsers
    # it signed in from): slower than axes', reached by a guesser spread over many addresses.
    "login_failed_account": f"{env.int('LOGIN_ACCOUNT_FAILURE_LIMIT', default=30)}/h/key",
}

AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("AXES_COOLOFF_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_USERNAME_CALLABLE = "accounts.lockout.lockout_username"
AXES_LOCKOUT_CALLABLE = "accounts.lockout.lockout_response"
# The lockout page's status: axes' own default, named here for the page (`accounts.lockout`).
AXES_HTTP_RESPONSE_CODE = 429
AXES_RESET_ON_SUCCESS = True
# Each attempt during a lockout restarts the cool-off, so "try again in N minutes" stays true.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = True
# The client's address (core.http.client_ip): REMOTE_ADDR, unless this many proxies stand in front
# of the site (docker-compose.yml's nginx: 1), whose own entries of X-Forwarded-For are then
# read. Anything else in that header is the client's to write, and never trusted: with 0, a
# different X-Forwarded-For per request changes nothing. One setting for every reader: axes,
# allauth's per-address limits and DRF's throttles (REST_FRAMEWORK's NUM_PROXIES below).
TRUSTED_PROXY_COUNT = env.int("TRUSTED_PROXY_COUNT", default=0)
AXES_CLIENT_IP_CALLABLE = "core.http.client_ip.client_address"
ALLAUTH_TRUSTED_PROXY_COUNT = TRUSTED_PROXY_COUNT
