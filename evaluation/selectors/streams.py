"""A session's open streams (decision 0085): which streams its system may work on now, and where each is.

The streams of a session are independent (each its own image and history); only within a stream is the
order strict. So a system may work on up to `session.open_streams` of them at once: the first ones of
the session's order that are not finished. When one finishes, the next stream of the order opens in its
place. With one open stream this is one question at a time in the plan's order.

The stored state is two fields of the session row (kept by evaluation.services.sessions under the row's
lock): `streams_next`, the first stream not opened yet, and `streams_at`, {stream: current step} of the
open ones. What a reader sees is that state *filled*: the open places taken by the next streams of the
order that are dealt already (a deal still generating writes them one by one), a stream without a shown
question skipped. Filling is a pure function of the state and the plan, and a plan only grows, so a read
that fills without writing and the next answer, which fills and writes, agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from evaluation.errors import EvaluationErrorCode
from evaluation.models import Session
from evaluation.selectors.plans import SessionDealing
from truthing.published import PlanStep, TestPlan, deal_progress
from vtt_site.errors import ApplicationError, CommonErrorCode, ConflictError


@dataclass
class OpenStreams:
    """`at`: {stream position: its current step} of the open streams; `next`: the first stream not
    opened yet (every stream before it is open or finished)."""

    size: int
    at: dict[int, int] = field(default_factory=dict)
    next: int = 0

    def fill(self, plan: TestPlan) -> list[int]:
        """Open the next dealt streams while there is room; the streams opened, in order."""
        opened = []
        while len(self.at) < self.size and self.next < len(plan.streams):
            stream = plan.streams[self.next]
            self.next += 1
            if stream.steps:
                self.at[stream.pos] = 0
                opened.append(stream.pos)
        return opened

    def answered(self, step: PlanStep) -> bool:
        """Whether the step was answered: its stream was opened and is past it (or finished)."""
        if step.stream_pos >= self.next:
            return False
        return step.stream_pos not in self.at or step.step_pos < self.at[step.stream_pos]

    def current(self, step: PlanStep) -> bool:
        return self.at.get(step.stream_pos) == step.step_pos

    def advance(self, step: PlanStep, plan: TestPlan) -> list[int]:
        """The current step of its stream is answered: the stream moves on, or finishes and the next
        streams open in its place (returned)."""
        if step.last_in_stream:
            del self.at[step.stream_pos]
        else:
            self.at[step.stream_pos] = step.step_pos + 1
        return self.fill(plan)

    def current_steps(self, plan: TestPlan) -> list[PlanStep]:
        """The current step of each open stream, in the order of the streams."""
        return [plan.steps[plan.streams[pos].first_ordinal + at] for pos, at in sorted(self.at.items())]

    def stored(self) -> dict[str, int]:
        """`streams_at` as the session row keeps it (JSON: the keys are strings)."""
        return {str(pos): at for pos, at in sorted(self.at.items())}


def open_streams_of(session: Session, plan: TestPlan) -> OpenStreams:
    """The session's open streams now, filled (nothing is written). A session over has none."""
    if session.streams_next is None:
        window = _from_answered(session, plan)
    else:
        at = {int(pos): step for pos, step in session.streams_at.items()}
        window = OpenStreams(size=session.open_streams, at=at, next=session.streams_next)
    if session.over:
        return OpenStreams(size=window.size, at={}, next=len(plan.streams))
    window.fill(plan)
    return window


def _from_answered(session: Session, plan: TestPlan) -> OpenStreams:
    """A session enrolled before the state was kept answers one step at a time in the plan's order:
    its one open stream is the one of the step at `answered`."""
    if session.answered < len(plan.steps):
        step = plan.steps[session.answered]
        return OpenStreams(size=1, at={step.stream_pos: step.step_pos}, next=step.stream_pos + 1)
    return OpenStreams(size=1, at={}, next=len(plan.streams))


def steps_to_ask(session: Session, plan: TestPlan) -> list[PlanStep]:
    """The current step of each open stream, in the streams' order; none once the session is over;
    SessionDealing (409, with Retry-After) when no stream is open while the deal is still generating."""
    if session.over:
        return []
    steps = open_streams_of(session, plan).current_steps(plan)
    if not steps and not plan.complete and session.deal_id is not None:
        raise SessionDealing(deal_progress(deal_id=session.deal_id))
    return steps


def chosen_step(steps: list[PlanStep], stream: str | None) -> PlanStep | None:
    """The current step of the open stream asked for (by its position, as a query parameter), or of the
    first open stream. A stream that is not open is refused with the open ones named, which the system
    is shown anyway: nothing about that stream is said."""
    if stream is not None and (not stream.isdigit() or len(stream) > 7):
        raise ApplicationError(
            CommonErrorCode.INVALID,
            "`stream` is the position of an open stream: a whole number.",
            fields={"stream": ["A whole number."]},
        )
    if stream is None or not steps:  # none open: the session is over
        return steps[0] if steps else None
    step = next((each for each in steps if each.stream_pos == int(stream)), None)
    if step is None:
        opened = ", ".join(str(each.stream_pos) for each in steps) or "none"
        raise ConflictError(
            EvaluationErrorCode.STREAM_NOT_OPEN,
            f"Stream {int(stream)} is not one of the session's open streams (open now: {opened}).",
        )
    return step


def streams_reached(session: Session, plan: TestPlan) -> int:
    """How many streams of the session's order its system has been shown (their images with them)."""
    return open_streams_of(session, plan).next
