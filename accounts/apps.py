from django.apps import AppConfig
from django.db.models.signals import post_migrate


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts and API tokens"

    def ready(self) -> None:
        from accounts.services import role_groups_ensure

        # Migration 0002 makes the role groups; a flush (`manage.py flush`, a transactional test's
        # teardown) empties auth_group and sends post_migrate, so they are made again then.
        post_migrate.connect(role_groups_ensure, sender=self)
