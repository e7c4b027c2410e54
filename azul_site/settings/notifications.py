"""What players are told and how: the notifications' outbox, outbound HTTP (webhooks, push)
and mail."""

from azul_site.settings.base import env

# Notifications. Emails about games go through an outbox (notifications.Notification), sent by
# a task after the write commits and by a sweep every minute that sends what is overdue and the
# daily digests (notifications/services.py).
SITE_NAME = env.str("SITE_NAME", default="Azul")
# A "your turn" email waits this long, and is dropped if the player opens the game or moves
# meanwhile: two people playing live get no email per move.
NOTIFY_GRACE_SECONDS = env.int("NOTIFY_GRACE_SECONDS", default=120)
# An invitation email waits this long, and is dropped if the game was cancelled or the invitation
# withdrawn meanwhile: inviting and cancelling at once sends nobody an email. Whatever the games,
# a player gets at most one invitation email a day from the same player
# (notifications/email/transport.py).
NOTIFY_INVITATION_GRACE_SECONDS = env.int("NOTIFY_INVITATION_GRACE_SECONDS", default=120)
# A failed send is tried again after 1, 2, 4, ... minutes, up to this many attempts in all.
NOTIFY_MAX_ATTEMPTS = env.int("NOTIFY_MAX_ATTEMPTS", default=6)
# The daily digest goes in this hour of the player's local time (Profile.time_zone).
NOTIFY_DIGEST_HOUR = env.int("NOTIFY_DIGEST_HOUR", default=8)
# How long an email's one-click unsubscribe link works.
NOTIFY_UNSUBSCRIBE_MAX_AGE_DAYS = env.int("NOTIFY_UNSUBSCRIBE_MAX_AGE_DAYS", default=90)

# Outbound HTTP: every call to a URL a player or a browser gave (webhooks, push) goes through
# notifications/outbound.py. HTTPS only unless OUTBOUND_ALLOW_HTTP; addresses that are not public
# (loopback, private, link-local, ...) are refused unless in OUTBOUND_ALLOWED_NETWORKS (CIDRs:
# only for tests and a private test rig); the whole exchange gets OUTBOUND_TIMEOUT_SECONDS and at
# most OUTBOUND_MAX_RESPONSE_BYTES of the answer are read.
OUTBOUND_ALLOWED_NETWORKS = env.list("OUTBOUND_ALLOWED_NETWORKS", default=[])
OUTBOUND_ALLOW_HTTP = env.bool("OUTBOUND_ALLOW_HTTP", default=False)
OUTBOUND_TIMEOUT_SECONDS = env.float("OUTBOUND_TIMEOUT_SECONDS", default=5.0)
OUTBOUND_MAX_RESPONSE_BYTES = env.int("OUTBOUND_MAX_RESPONSE_BYTES", default=64 * 1024)
# Webhooks (notifications/webhooks/): how many one player may have, how many tests they may
# send an hour, and after how many deliveries in a row failed for good a webhook is turned off
# (its owner is told by email). A Retry-After longer than WEBHOOK_RETRY_AFTER_MAX_SECONDS is cut.
WEBHOOKS_MAX_PER_PLAYER = env.int("WEBHOOKS_MAX_PER_PLAYER", default=5)
WEBHOOK_TESTS_PER_HOUR = env.int("WEBHOOK_TESTS_PER_HOUR", default=10)
WEBHOOK_FAILURES_TO_DISABLE = env.int("WEBHOOK_FAILURES_TO_DISABLE", default=5)
WEBHOOK_RETRY_AFTER_MAX_SECONDS = env.int("WEBHOOK_RETRY_AFTER_MAX_SECONDS", default=3600)
# Web Push (notifications/push/transport.py): the site's VAPID key pair (`manage.py vapid_keys`
# makes one; URL-safe base64, the private key's 32 bytes and the public key's 65) and the
# contact the push services may write to ("mailto:..."). Push notices are offered only when all
# three are set.
WEBPUSH_VAPID_PUBLIC_KEY = env.str("WEBPUSH_VAPID_PUBLIC_KEY", default="")
WEBPUSH_VAPID_PRIVATE_KEY = env.str("WEBPUSH_VAPID_PRIVATE_KEY", default="")
WEBPUSH_VAPID_SUBJECT = env.str("WEBPUSH_VAPID_SUBJECT", default="")
# The most devices one player may have push notices sent to.
PUSH_MAX_DEVICES = env.int("PUSH_MAX_DEVICES", default=10)

# Mail. EMAIL_URL wins (smtp+tls://user:pass@host:587, consolemail://, filemail:///path, ...);
# else EMAIL_HOST selects SMTP; else mail is printed to the console for the developer to read.
if env.str("EMAIL_URL", default=""):
    globals().update(env.email_url("EMAIL_URL"))
elif env.str("EMAIL_HOST", default=""):
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_HOST = env.str("EMAIL_HOST")
    EMAIL_PORT = env.int("EMAIL_PORT", default=587)
    EMAIL_HOST_USER = env.str("EMAIL_HOST_USER", default="")
    EMAIL_HOST_PASSWORD = env.str("EMAIL_HOST_PASSWORD", default="")
    EMAIL_USE_TLS = env.bool("EMAIL_USE_TLS", default=True)
else:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
EMAIL_TIMEOUT = 10
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default=f"{SITE_NAME} <noreply@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# Where players write to for help: the "contact us" links (a password that cannot be reset).
CONTACT_EMAIL = env.str("CONTACT_EMAIL", default="contact@localhost")
# Where security problems are reported (/.well-known/security.txt, SECURITY.md).
SECURITY_CONTACT = env.str("SECURITY_CONTACT", default=CONTACT_EMAIL)
