"""Create one Django group per role. The names are written out: a migration must not depend on code
that may change later (accounts.roles.Role holds the same names)."""

from django.db import migrations

ROLE_GROUPS = ["annotator", "reviewer", "operator", "vision-system owner", "admin"]


def create_groups(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    for name in ROLE_GROUPS:
        Group.objects.get_or_create(name=name)


def remove_groups(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=ROLE_GROUPS).delete()


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_initial"), ("auth", "0012_alter_user_first_name_max_length")]
    operations = [migrations.RunPython(create_groups, remove_groups)]
