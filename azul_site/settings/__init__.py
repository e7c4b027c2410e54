"""Settings for the Azul site, read from the environment.

Every variable is listed and explained in `.env.example`. With no environment at all the site runs
for development: DEBUG on, SQLite in the project folder, Celery tasks run in-process, mail printed
to the console. With DEBUG off it refuses to start without SECRET_KEY and turns on the HTTPS
hardening that `manage.py check --deploy` asks for.

The settings by concern, one module each (a module takes what it reads of another by name,
`from azul_site.settings.base import env`):
- `base`: the environment, DEBUG and SECRET_KEY, hosts, apps, middleware, templates, languages,
  static files;
- `data`: the database and the cache (Redis);
- `tasks`: Celery, its queues and the periodic work;
- `notifications`: the outbox, outbound HTTP (webhooks, push) and mail;
- `play`: what one player may do at once, ratings and analyses;
- `accounts`: sign-up, sign-in, rate limits and lockouts, the client's address;
- `api`: DRF and the API's schema;
- `security`: HTTPS, cookies, HSTS, the Content-Security-Policy;
- `ops`: metrics, readiness, logs, Sentry.
`DJANGO_SETTINGS_MODULE=azul_site.settings` names this package, which gathers them all.
"""

from azul_site.settings.accounts import *  # noqa: F403
from azul_site.settings.api import *  # noqa: F403
from azul_site.settings.base import *  # noqa: F403
from azul_site.settings.data import *  # noqa: F403
from azul_site.settings.notifications import *  # noqa: F403
from azul_site.settings.ops import *  # noqa: F403
from azul_site.settings.play import *  # noqa: F403
from azul_site.settings.security import *  # noqa: F403
from azul_site.settings.tasks import *  # noqa: F403
