FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY pyproject.toml README.md ./
COPY azul_site azul_site
COPY accounts accounts
COPY games games
COPY notifications notifications
COPY ratings ratings
RUN pip install --no-cache-dir .
COPY . .
# The production storage (DEBUG=0) writes the manifest that every page looks its static files up
# in; without it the image answers every page with a 500. The key only lets the production
# settings load for this one command, so it is set here and never in the image's ENV.
RUN DEBUG=0 SECRET_KEY=build-time-only-collectstatic-key python manage.py collectstatic --noinput
EXPOSE 8000
CMD ["gunicorn", "azul_site.wsgi:application", "--config", "gunicorn.conf.py"]
