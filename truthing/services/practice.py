"""Practice tests and scored tests keep their images apart (decision 0075).

A practice test may be taken by any system any number of times, and each session is told the truth
after each answer: after enough sessions its images' facts (who is where, doing what) are known to
anyone. A scored test on one of those images would then be answered from memory. So an image is never
in both a frozen practice test and a frozen scored test: publishing refuses a test whose images (the
same row, or the same picture uploaded again: the same content hash) are in a frozen test of the other
kind. Tests still being built may share images; the one published second is refused.
"""

from __future__ import annotations

from django.db.models import Q

from annotations.models import Image
from truthing.errors import TruthingErrorCode
from truthing.models import Test, TestImage, TestState
from vtt_site.errors import ConflictError

# The shared images a refusal names one by one (its message counts them all).
NAMED_SHARED = 5


def kind_of(practice: bool) -> str:
    return "practice" if practice else "scored"


def require_apart(test: Test, *, practice: bool) -> None:
    """Refuse (409 practice_shares_images) to publish `test` as `practice` (or as scored) while one of
    its images is in a frozen test of the other kind. The images' rows are locked first, so that two
    tests published at once on the same picture are checked one after the other."""
    shared = _shared_images(test, practice=practice)
    if not shared:
        return
    names = [f"{name} (in {other})" for name, other in shared[:NAMED_SHARED]]
    if len(shared) > len(names):
        names.append(f"and {len(shared) - len(names)} more")
    why = (
        "a practice test tells its truths to any system, any number of times, so a scored test on the "
        "same pictures could be answered from memory"
    )
    raise ConflictError(
        TruthingErrorCode.PRACTICE_SHARES_IMAGES,
        f"{test.name} cannot be published as a {kind_of(practice)} test: "
        f"{len(shared)} of its images {'is' if len(shared) == 1 else 'are'} in a published "
        f"{kind_of(not practice)} test: {', '.join(names)}. Build it on other test images ({why}).",
        fields={"images": names},
    )


def _shared_images(test: Test, *, practice: bool) -> list[tuple[str, str]]:
    """(image name, other test's name) for each image of `test` that is, by row or by content hash, in
    a published or archived test of the other kind; in the test's order of images."""
    mine = list(
        Image.objects.select_for_update()
        .filter(pk__in=TestImage.objects.filter(test=test).values("image_id"))
        .order_by("pk")
        .values_list("pk", "content_hash")
    )
    ids = [pk for pk, _ in mine]
    hashes = {content for _, content in mine if content}
    others = (
        TestImage.objects.filter(
            test__state__in=(TestState.PUBLISHED, TestState.ARCHIVED), test__practice=not practice
        )
        .exclude(test=test)
        .filter(Q(image_id__in=ids) | Q(image__content_hash__in=hashes))
        .values_list("image_id", "image__content_hash", "test__name")
    )
    by_image: dict[int, str] = {}
    by_hash: dict[str, str] = {}
    for image_id, content, name in others:
        by_image.setdefault(image_id, name)
        if content:
            by_hash.setdefault(content, name)
    shared = []
    for test_image in TestImage.objects.filter(test=test).select_related("image").order_by("position"):
        image = test_image.image
        other = by_image.get(image.pk) or (by_hash.get(image.content_hash) if image.content_hash else None)
        if other is not None:
            shared.append((image.original_name, other))
    return shared
