FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
# The locked versions, hashes checked (`make lock` writes them), in a layer of their own; then
# the site itself, which adds nothing to them (`pip check` fails if pyproject.toml asks for more).
COPY requirements/lock.txt requirements/lock.txt
RUN pip install --no-cache-dir --require-hashes -r requirements/lock.txt
# Every package pyproject.toml installs, and only those (tests/ops/test_image.py keeps the two lists
# equal): research/, tests/ and scripts/ stay out of the image (.dockerignore).
COPY pyproject.toml README.md ./
COPY azul azul
COPY core core
COPY accounts accounts
COPY games games
COPY notifications notifications
COPY ratings ratings
COPY analysis analysis
COPY chat chat
COPY events events
COPY azul_site azul_site
RUN pip install --no-cache-dir --no-deps . && pip check
# What runs beside the packages: manage.py (migrate, collectstatic, the sweeps), gunicorn's
# settings (the CMD and docker-compose.yml's live service), and the folders the settings read
# (TEMPLATES' DIRS, STATICFILES_DIRS, LOCALE_PATHS).
COPY manage.py gunicorn.conf.py ./
COPY templates templates
COPY static static
COPY locale locale
# The production storage (DEBUG=0) writes the manifest that every page looks its static files up
# in; without it the image answers every page with a 500. The key only lets the production
# settings load for this one command, so it is set here and never in the image's ENV.
RUN DEBUG=0 SECRET_KEY=build-time-only-collectstatic-key python manage.py collectstatic --noinput
# The site on 8000 (gunicorn's synchronous workers); the same image runs the live process, which
# serves the requests that wait for a game to change, on 8001 (docker-compose.yml's live service:
# gunicorn azul_site.asgi:application with GUNICORN_WORKER_CLASS=azul_site.live_worker.LiveWorker).
EXPOSE 8000 8001
CMD ["gunicorn", "azul_site.wsgi:application", "--config", "gunicorn.conf.py"]
