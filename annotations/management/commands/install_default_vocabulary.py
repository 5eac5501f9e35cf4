from annotations.services.vocabularies import vocabulary_install_default
from vtt_site.commands import PlatformCommand


class Command(PlatformCommand):
    help = (
        "Install the urban-street vocabulary shipped with the platform: nothing when its latest version says "
        "the same, the next version when the shipped document changed."
    )

    def handle(self, *args, **options):
        vocabulary, created = vocabulary_install_default()
        verb = "Installed" if created else "Already installed:"
        self.stdout.write(f"{verb} vocabulary {vocabulary} (id {vocabulary.pk}).")
