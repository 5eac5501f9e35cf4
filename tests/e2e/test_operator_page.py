"""The operator's page as the person the method depends on sees it (issue 20): the region is an outline
with its caption under the image, H held shows the bare picture, the stream's answers so far are beside
the image, and a yes to a uniqueness question may carry a click on the object it singled out, which is
then the label's marker for the operator, the checker and the adjudicator. On a phone nothing wraps
inside an answer button."""

from __future__ import annotations

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from accounts.roles import Role
from annotations.models import MemberRole, Split
from annotations.services.images import image_upload
from demo.synthetic.render import render_scene
from demo.synthetic.scenes import generate_scenes
from tests.e2e.conftest import Canvas, answer_key, login, shot
from tests.e2e.test_truthing import members
from truthing.models import Disagreement, Step, Stream, StreamState
from truthing.services import lifecycle
from truthing.services.proposals import stream_propose
from truthing.services.queue import operator_next
from truthing.services.streams import step_answer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WORK = "document.querySelector('[data-testid=work]')"


def street_with_people(collection):
    """A rendered street scene with its people and vehicles (nobody annotated it: operators truth it)."""
    scene = next(iter(generate_scenes(1, seed=45, prefix="people", width=960, height=640)))
    buffer = io.BytesIO()
    render_scene(scene).save(buffer, format="PNG")
    result = image_upload(
        collection=collection, files=[SimpleUploadedFile(scene["image"], buffer.getvalue())]
    )
    (image,) = result.created
    image.split = Split.TEST
    image.save(update_fields=["split"])
    return image, scene


def wait_for_next(page, step: int) -> None:
    page.wait_for_function(
        f"s => {WORK}.dataset.state === 'ended' || ({WORK}.dataset.state === 'pending' && {WORK}.dataset.step !== s)",
        arg=str(step),
    )


def rgb(colour: str) -> tuple[int, ...]:
    """'#rrggbb' or 'rgb(r, g, b)' as numbers."""
    colour = colour.strip()
    if colour.startswith("#"):
        return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return tuple(int(float(v)) for v in colour[colour.index("(") + 1 : -1].split(",")[:3])


def assert_drawn_unlike_a_label(page, outline) -> None:
    """Issue 46, item 9: a hovered answer's region was drawn dashed in an orange a label's region is
    drawn in (dashed, in its colour): its stroke must be far from every label colour and dashed
    otherwise."""
    stroke, dashes = outline.evaluate(
        "r => [getComputedStyle(r).stroke, getComputedStyle(r).strokeDasharray]"
    )
    palette = page.evaluate(
        "() => [0, 1, 2, 3, 4, 5].map(i => getComputedStyle(document.querySelector('.truthing'))"
        ".getPropertyValue(`--c${i}`))"
    )
    nearest = min(sum((a - b) ** 2 for a, b in zip(rgb(stroke), rgb(c), strict=True)) ** 0.5 for c in palette)
    assert nearest > 100, (stroke, palette)
    assert dashes.replace("px", "").replace(",", " ").split() != ["6", "4"], dashes


def object_in(scene, kind: str, box) -> list[float]:
    """The centre of an object of `kind` whose box overlaps `box` (the region), else the region's."""
    x, y, w, h = box
    for obj in scene["objects"]:
        ox, oy, ow, oh = obj["bbox"]
        if obj["type"] == kind and ox < x + w and x < ox + ow and oy < y + h and y < oy + oh:
            cx, cy = ox + ow / 2, oy + oh / 2
            return [min(max(cx, x + 2), x + w - 2), min(max(cy, y + 2), y + h - 2)]
    return [x + w / 2, y + h / 2]


def test_the_operator_sees_the_history_marks_the_object_and_the_checker_and_adjudicator_see_the_mark(
    settings, trained_collection, make_test, operators, users, new_page
):
    settings.TRUTHING_CHECK_SHARE = 1.0
    operator, checker = operators[:2]
    reviewer = users[Role.REVIEWER]
    members(trained_collection, operator, checker)
    members(trained_collection, reviewer, role=MemberRole.REVIEWER)
    image, scene = street_with_people(trained_collection)
    test = lifecycle.start_test(test=make_test([image]))
    stream = Stream.objects.get(test_image__test=test)
    stream_propose(stream_id=stream.pk)

    page = new_page()
    login(page, operator)
    page.goto("/truthing/")
    page.get_by_test_id("take-next").click()
    page.wait_for_selector("body[data-ready=true]")
    page.wait_for_selector("body[data-image-loaded=true]")
    work = page.get_by_test_id("work")
    canvas = Canvas(page)

    # The region is an outline (no tint), and its caption is under the image, not on it.
    region = page.locator("svg g.pending rect.region")
    assert region.count() == 1
    # Read from the page as it is drawn when asked: a redraw (a late resize) may replace the element
    # between finding it and reading its style, which reads as an empty fill.
    tint = page.evaluate("() => getComputedStyle(document.querySelector('svg g.pending rect.region')).fill")
    assert tint == "none", f"the region tints the picture ({tint})"
    assert page.locator("svg text").count() == 0, "a caption is drawn over the picture"
    legend = page.get_by_test_id("legend")
    assert legend.is_visible() and "the designated region" in legend.inner_text()
    legend_top = legend.bounding_box()["y"]
    stage = page.locator(".stage").bounding_box()
    assert legend_top >= stage["y"] + stage["height"], "the legend is not under the image"
    # H held: the bare picture; released: the outline again.
    page.keyboard.down("h")
    assert not region.is_visible(), "holding H leaves the region drawn"
    shot(page, "issue20-operator-bare")
    page.keyboard.up("h")
    assert region.is_visible()
    assert "No answer yet." in page.get_by_test_id("history").inner_text()
    shot(page, "issue20-operator-first-question")

    # Answer until a uniqueness question; the history grows with every answer.
    answered = []
    while work.get_attribute("data-state") == "pending":
        step = int(work.get_attribute("data-step"))
        pending = Step.objects.get(stream=stream, index=step)
        if pending.question["kind"] == "unique":
            break
        answer = "y" if pending.question["kind"] == "exist" else "n"
        answer_key(page, answer)
        wait_for_next(page, step)
        answered.append((step, pending.text, "yes" if answer == "y" else "no"))
        items = page.get_by_test_id("history").locator("li")
        assert items.count() == len(answered)
        line = items.last.inner_text()
        assert line.startswith(f"{step + 1}. {pending.text} {answered[-1][2]}"), line
        # Each answer says which region it was about (issue 38: six identical lines could not be told apart).
        box = pending.question.get("region", {}).get("box")
        if box:
            x, y, w, h = (int(v + 0.5) for v in box)
            assert line.endswith(f"(region {w}\N{MULTIPLICATION SIGN}{h} at {x}, {y})"), line
    assert work.get_attribute("data-state") == "pending", "the stream ended before a uniqueness question"
    # Pointing at an answer outlines the region it was about; leaving it clears the outline.
    first = Step.objects.get(stream=stream, index=answered[0][0])
    page.get_by_test_id("history").locator("li").first.hover()
    outline = page.locator("svg g.answered-region rect.region")
    assert outline.count() == 1
    drawn = [float(outline.get_attribute(a)) for a in ("x", "y", "width", "height")]
    assert drawn == pytest.approx(first.question["region"]["box"])
    assert_drawn_unlike_a_label(page, outline)
    # ... and the legend names it while it is drawn (issue 46).
    legend = page.get_by_test_id("legend")
    assert f"the region of answer {answered[0][0] + 1}" in legend.inner_text()
    shot(page, "operator-history-hover")
    legend.hover()
    assert outline.count() == 0
    assert "the region of answer" not in legend.inner_text()
    unique = Step.objects.get(stream=stream, index=int(work.get_attribute("data-step")))
    hint = page.get_by_test_id("pick-hint")
    assert hint.is_visible() and "click the" in hint.inner_text()
    # One click on the object, then Yes: the point is stored with the step.
    point = object_in(scene, unique.question["type"], unique.question["region"]["box"])
    canvas.click(*point)
    assert "Marked" in hint.inner_text()
    assert page.locator("svg g.marker.pick").count() == 1
    shot(page, "issue20-operator-marked")
    answer_key(page, "y")
    wait_for_next(page, unique.index)
    unique.refresh_from_db()
    assert unique.label and unique.point is not None
    assert abs(unique.point[0] - point[0]) < 1.5 and abs(unique.point[1] - point[1]) < 1.5, unique.point
    # From then on the label is drawn at that point, and the history says what the yes made.
    marker = page.locator(f'svg g.marker[data-label="{unique.label}"]')
    assert marker.count() == 1
    assert f"→ {unique.label}" in page.get_by_test_id("history").locator("li").last.inner_text()
    assert unique.label in page.get_by_test_id("legend").inner_text()
    shot(page, "issue20-operator-after-mark")

    # A phone: the answer buttons keep their text on one line; the page does not scroll sideways.
    page.set_viewport_size({"width": 390, "height": 844})
    yes, ambiguous = page.get_by_test_id("answer-yes"), page.get_by_test_id("answer-ambiguous")
    assert ambiguous.bounding_box()["height"] <= yes.bounding_box()["height"] + 1, "Ambiguous wraps"
    assert ambiguous.evaluate("b => b.scrollWidth <= b.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot(page, "issue20-operator-phone")
    page.set_viewport_size({"width": 1400, "height": 900})

    # The rest of the stream through the services; the checker disagrees on the marked question.
    while True:
        stream.refresh_from_db()
        if stream.state == StreamState.ENDED:
            break
        step = stream.steps.get(answer="")
        step_answer(stream_id=stream.pk, user=operator, index=step.index, answer="no")
    assert operator_next(user=operator) is None
    stored = dict(stream.steps.values_list("index", "answer"))

    check = new_page()
    login(check, checker)
    check.goto("/truthing/")
    check.get_by_test_id("take-next").click()
    check.wait_for_selector("body[data-ready=true]")
    check_work = check.get_by_test_id("work")
    assert check_work.get_attribute("data-kind") == "check"
    assert "You have answered nothing yet." in check.get_by_test_id("history").inner_text()
    while check_work.get_attribute("data-state") != "ended":
        step = int(check_work.get_attribute("data-step"))
        if step == unique.index + 1:
            # Past the marked question: the operator's mark names the label for the checker too, and the
            # checker's history is their own answers.
            check.wait_for_selector("body[data-image-loaded=true]")
            assert check.locator(f'svg g.marker[data-label="{unique.label}"]').count() == 1
            assert (
                check.get_by_test_id("history").locator("li").nth(unique.index).locator("strong").inner_text()
                == "no"
            )
            shot(check, "issue20-checker-with-mark")
            check.set_viewport_size({"width": 390, "height": 844})
            assert check.evaluate("document.documentElement.scrollWidth") <= 390
            shot(check, "issue20-checker-phone")
            check.set_viewport_size({"width": 1400, "height": 900})
        given = "no" if step == unique.index else stored[step]
        answer_key(check, {"yes": "y", "no": "n", "ambiguous": "a"}[given])
        wait_for_next(check, step)
    disagreement = Disagreement.objects.get(step=unique)

    review = new_page()
    login(review, reviewer)
    review.goto("/truthing/disagreements/")
    card = review.get_by_test_id(f"disagreement-{disagreement.pk}")
    review.wait_for_function("() => [...document.images].every((i) => i.complete)")
    assert card.locator(f'svg g.marker.pick[data-label="{unique.label}"]').count() == 1
    assert "singled out" in card.get_by_test_id("legend").inner_text()
    assert card.locator("svg rect.region.pending").evaluate("r => getComputedStyle(r).fill") == "none"
    shot(review, "issue20-adjudication-with-mark")
    review.set_viewport_size({"width": 390, "height": 844})
    assert review.evaluate("document.documentElement.scrollWidth") <= 390
    shot(review, "issue20-adjudication-phone")


def test_a_question_about_two_labels_draws_both_with_a_sentence_that_agrees(
    trained_collection, statistics, operators, new_page
):
    """Rows built by hand (the page reads rows only): person 1 and vehicle 1 instantiated, then a
    relationship question between them waits."""
    from django.utils import timezone

    from truthing.models import Test, TestImage

    operator = operators[0]
    members(trained_collection, operator)
    image, _ = street_with_people(trained_collection)
    test = Test.objects.create(name="two labels", statistics=statistics, state="truthing")
    test_image = TestImage.objects.create(test=test, image=image, position=0)
    stream = Stream.objects.create(
        test_image=test_image,
        state=StreamState.PENDING,
        lease_holder=operator,
        lease_expires_at=timezone.now() + timezone.timedelta(minutes=30),
    )
    rows = [
        (
            {
                "kind": "unique",
                "type": "person",
                "attributes": [],
                "region": {"id": "a", "box": [0, 0, 480, 640]},
            },
            "person 1",
        ),
        (
            {
                "kind": "unique",
                "type": "vehicle",
                "attributes": [],
                "region": {"id": "b", "box": [480, 0, 480, 640]},
            },
            "vehicle 1",
        ),
    ]
    for index, (question, label) in enumerate(rows):
        Step.objects.create(
            stream=stream,
            index=index,
            question=question,
            text=f"Is there a unique {question['type']}?",
            answer="yes",
            label=label,
            answered_by=operator,
            point_x=100.0 + 400 * index,
            point_y=300.0,
        )
    relation = {"kind": "rel", "subject": "person 1", "relationship": "closer than", "object": "vehicle 1"}
    Step.objects.create(stream=stream, index=2, question=relation, text="Is person 1 closer than vehicle 1?")

    page = new_page()
    login(page, operator)
    page.goto(f"/truthing/streams/{stream.pk}/")
    page.wait_for_selector("body[data-ready=true]")
    note = page.locator("[data-role=region-note]").inner_text()
    assert "the regions where person 1 and vehicle 1 were found" in note, note
    assert page.locator("svg g.regions g.named rect.region").count() == 2
    colours = page.locator("svg g.regions g.named").evaluate_all("gs => gs.map((g) => g.classList.value)")
    assert len(set(colours)) == 2, f"both labels in one colour: {colours}"
    assert page.locator("svg g.marker.named").count() == 2
    assert page.locator("svg text").count() == 2, "only the markers' small names are on the picture"
    legend = page.get_by_test_id("legend").inner_text()
    assert "where person 1 was found" in legend and "where vehicle 1 was found" in legend
    shot(page, "issue20-operator-two-labels")
