from django.apps import AppConfig


class TruthingConfig(AppConfig):
    name = "truthing"
    verbose_name = "Truthing"
