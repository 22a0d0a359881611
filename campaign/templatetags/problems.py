"""``{{ problem|problem_text }}``: a report text of the scoring library in the page's language."""
from django import template

from campaign.problem_texts import translated

register = template.Library()


@register.filter
def problem_text(problem) -> str:
    message = problem.get("message") if isinstance(problem, dict) else getattr(problem, "message", problem)
    return translated(str(message or ""))
