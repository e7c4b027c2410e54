"""The Celery app. How the site sends a task, and the options its tasks take, are in
`core.tasks`."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "azul_site.settings")

app = Celery("azul_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
