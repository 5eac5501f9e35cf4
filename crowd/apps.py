from django.apps import AppConfig


class CrowdConfig(AppConfig):
    name = "crowd"
    verbose_name = "Crowds"

    def ready(self) -> None:
        # The annotation queues ask this registry whether a collection's images go to the crowd's queue
        # instead (annotations.routing): annotations never imports the crowd app.
        from crowd.services.routing import register

        register()
