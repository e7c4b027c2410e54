"""One full stop after a name that ends with one (`core.pages.text`).

`{{ winners|end_sentence }}` ends a sentence with a name; for a sentence written whole in the
template (a translated one), `{% filter tidy_full_stops %}...{% endfilter %}` mends it.
"""

from typing import Any

from django import template
from django.utils.safestring import SafeData, mark_safe

from core.pages import text as punctuation

register = template.Library()


def _keep_safety(original: Any, result: str) -> str:
    return mark_safe(result) if isinstance(original, SafeData) else result


@register.filter(is_safe=True)
def end_sentence(value: str) -> str:
    return _keep_safety(value, punctuation.end_sentence(value))


@register.filter(is_safe=True)
def tidy_full_stops(value: str) -> str:
    return _keep_safety(value, punctuation.tidy_full_stops(value))
