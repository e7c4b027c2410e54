"""`{% form_answers "place" %}`: the answers to the form at that place (`core.pages.form_answers`);
`messages|unplaced`: the others, for the top of the page."""

from typing import Any

from django import template

from core.pages import form_answers as answers

register = template.Library()


@register.inclusion_tag("_form_answers.html", takes_context=True)
def form_answers(context: template.Context, place: str) -> dict[str, Any]:
    return {"answers": answers.at(context.get("messages"), place), "place": place}


@register.filter
def unplaced(stored: Any) -> list[Any]:
    return answers.unplaced(stored)
