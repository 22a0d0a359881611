"""Django's makemessages, reading the scoring library's ``N_`` marker too.

The annotation and scoring library stays free of Django (it is to be a package of its own): it
marks its report texts with ``N_ = lambda s: s`` (parseval.annotations.errors), keeps the English text in
what it stores, and the app translates them when a page shows them. xgettext learns the marker
here; the run files and virtual environment beside the code are never read.

    python manage.py makemessages -l fr      # then translate locale/fr/LC_MESSAGES/django.po
"""
from django.core.management.commands import makemessages


class Command(makemessages.Command):
    xgettext_options = [*makemessages.Command.xgettext_options, "--keyword=N_"]

    def handle(self, *args, **options):
        options["ignore_patterns"] = [*options.get("ignore_patterns", []), ".venv/*", "var/*", "tests/*",
                                      "benchmarks/*", "data/*", "scripts/*", "node_modules/*"]
        options["no_location"] = True
        return super().handle(*args, **options)
