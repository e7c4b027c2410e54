"""`{% contact_email %}`: the address players write to for help (`settings.CONTACT_EMAIL`)."""

from django import template
from django.conf import settings

register = template.Library()


@register.simple_tag
def contact_email() -> str:
    return settings.CONTACT_EMAIL
