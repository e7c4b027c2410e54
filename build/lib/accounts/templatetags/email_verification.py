"""`{% pending_email_verification as pending %}`: the sign-up of this session that waits for its
email address to be confirmed (`accounts.verification.pending`), or None."""

from django import template

from accounts import verification

register = template.Library()


@register.simple_tag(takes_context=True)
def pending_email_verification(context: template.Context):
    request = context.get("request")
    return verification.pending(request) if request is not None else None
