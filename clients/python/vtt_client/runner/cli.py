"""`vtt take`: a whole test taken by a chat model, from the command line.

    vtt take --url URL --token-env VTT_TOKEN --test N openai --base-url URL --model NAME \\
        [--api-key-env OPENAI_API_KEY] [--blind] [--show drawn|words|both] [--image-format jpeg|png] \\
        [--prompts DIR] [--log-dir DIR] [--seed 0] [--temperature 0] [--concurrency N] [--timeout S] \\
        [--max-retries N] [--backoff S]

The platform's token is read from an environment variable (`--token-env`, default VTT_TOKEN) so that it
stays out of the process list; `--token` is accepted too. Exit status: 0 the test is done; 1 the model
server or the platform failed, after the retries (run the same command again to go on); 2 a set-up to
fix (a missing variable, a refused token or key, a wrong model name, a blind run on a seeing system...);
130 stopped with Ctrl-C. Every failure is one line on stderr, and leaves the session as it was: the
answers given stay, and the same command goes on from the server's position.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx

from vtt_client.client import ApiError, Client, Session, UnsupportedServer
from vtt_client.runner.conversation import Showing
from vtt_client.runner.drawing import IMAGE_FORMATS
from vtt_client.runner.log import Progress, RunLog, Totals, summary
from vtt_client.runner.model import BACKENDS, Backend, ModelError, backend_factory
from vtt_client.runner.prompts import PromptError, load_prompts
from vtt_client.runner.take import take


class RunnerError(Exception):
    """A failure said in one line, with the exit status it gives."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return run_take(args, os.environ)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="vtt", description="Take visual Turing tests with a model.")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    take_parser = commands.add_parser(
        "take",
        help="take a whole test with a chat model",
        description="Take a whole test with a chat model: enrol (or resume), ask the model every question, "
        "answer, log. Run the same command again after a failure: it goes on where the session stopped.",
    )
    take_parser.add_argument("--url", required=True, help="the platform, e.g. https://vtt.example.org")
    take_parser.add_argument(
        "--token-env", default="VTT_TOKEN", metavar="NAME", help="the variable holding your system's token"
    )
    take_parser.add_argument("--token", help="the token itself (visible to others in the process list)")
    take_parser.add_argument("--test", type=int, required=True, help="the test's number")
    take_parser.add_argument(
        "--system", type=int, help="the system to enrol, for a person's token (a system's token says which)"
    )
    backends = take_parser.add_subparsers(dest="backend", required=True, metavar="BACKEND")
    for name in BACKENDS:
        factory = backend_factory(name)
        backend_parser = backends.add_parser(name, help=factory.help, description=factory.help)
        factory.add_arguments(backend_parser)
        _add_run_arguments(backend_parser)
    return top


def _add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of a run, after the backend's name."""
    parser.add_argument("--blind", action="store_true", help="show the model no image (a language-prior row)")
    parser.add_argument(
        "--show",
        choices=["drawn", "words", "both"],
        default="both",
        help="the regions drawn on the image, in words, or both (default)",
    )
    parser.add_argument(
        "--image-format",
        choices=IMAGE_FORMATS,
        default="jpeg",
        help="how the image is sent: jpeg (default: small and fast, lines within a few levels of their "
        "colour) or png (every pixel exact)",
    )
    parser.add_argument(
        "--prompts",
        type=Path,
        metavar="DIR",
        help="prompt templates to use instead of the ones shipped with the client (see the guide)",
    )
    parser.add_argument(
        "--log-dir", type=Path, default=Path("vtt-runs"), metavar="DIR", help="default ./vtt-runs"
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="the sampling seed sent with every request (default 0)"
    )
    parser.add_argument("--temperature", type=float, default=0.0, help="default 0")
    parser.add_argument(
        "--concurrency",
        type=_positive,
        metavar="N",
        help="streams taken at once, each its own chat (default: as many as the test opens at once); "
        "lowered while the model server answers 429 and raised again as it stops",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        metavar="S",
        help="seconds to wait for one reply (default 120)",
    )
    parser.add_argument(
        "--max-retries",
        type=int,
        default=6,
        metavar="N",
        help="retries of a request on 429, 5xx and timeouts (default 6)",
    )
    parser.add_argument(
        "--backoff",
        type=float,
        default=1.0,
        metavar="S",
        help="the first retry's wait, doubled for each one after (default 1)",
    )


def run_take(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    """The command, with every failure turned into one line on stderr and an exit status."""
    state: dict[str, Session] = {}  # the session, once enrolled: a failure says what it keeps
    try:
        _take(args, environ, state)
    except (RunnerError, ModelError) as error:
        return _fail(str(error), error.exit_code, state)
    except PromptError as error:
        return _fail(str(error), 2, state)
    except ApiError as error:
        return _fail(_platform_refused(error, args), 2 if error.status in (401, 403, 404) else 1, state)
    except UnsupportedServer as error:
        return _fail(f"{error} Update the platform, or use an older client.", 2, state)
    except httpx.TransportError:
        return _fail(f"Could not reach the platform at {args.url}.", 1, state)
    except KeyboardInterrupt:
        return _fail("Stopped.", 130, state)
    return 0


def _take(args: argparse.Namespace, environ: Mapping[str, str], state: dict[str, Session]) -> None:
    token = _token(args, environ)
    model = backend_factory(args.backend).from_arguments(args, environ)
    prompts = load_prompts(args.prompts)
    showing = Showing.of(args.show, blind=args.blind, image_format=args.image_format)
    with Client(args.url, token, progress=False) as client:
        system = _system(client, args.system)
        _check_shown(system, blind=args.blind)
        model.preflight()  # before enrolling: a wrong model, key or address opens no session
        session = client.session(args.test, system=system["id"])
        state["session"] = session
        log = RunLog(args.log_dir, session.id)
        concurrency = args.concurrency or session.open_streams or 1
        log.run_started(_settings(args, model, system) | {"concurrency": concurrency})
        take(
            session,
            model,
            prompts=prompts,
            showing=showing,
            log=log,
            progress=Progress(),
            concurrency=concurrency,
        )
        print(summary(Totals.of(log.questions()), session.score(), log.path))


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number from 1 up")
    return value


def _token(args: argparse.Namespace, environ: Mapping[str, str]) -> str:
    token = args.token or environ.get(args.token_env, "")
    if not token:
        raise RunnerError(f"Set {args.token_env} to your system's token (or pass --token).", 2)
    return token


def _system(client: Client, system_id: int | None) -> dict[str, Any]:
    """The system the run takes the test as: the one a system's token acts as, or `--system`."""
    if system_id is not None:
        return client.system(system_id)
    systems = client.systems()
    if not systems:
        raise RunnerError("This token acts as no vision system: register one, and use its token.", 2)
    if len(systems) > 1:
        raise RunnerError("This token can act as several systems: say which with --system.", 2)
    return systems[0]


def _check_shown(system: Mapping[str, Any], *, blind: bool) -> None:
    """A blind run is a system registered as shown text only, and a seeing run one shown the image: a
    row of the leaderboard says which it is, and must be true."""
    shown, name = system.get("shown"), system.get("name", "")
    if shown is None:
        kind = "blind" if blind else "seeing"
        print(
            f"vtt: warning: the platform does not say whether {name!r} is shown the image or text only; "
            f"taking the test as a {kind} run.",
            file=sys.stderr,
        )
    elif blind and shown == "image":
        raise RunnerError(
            f"{name!r} is registered as shown the image: a blind run (--blind) needs a system registered "
            "as shown text only.",
            2,
        )
    elif not blind and shown == "text":
        raise RunnerError(
            f"{name!r} is registered as shown text only: run it with --blind, or use a system shown the image.",
            2,
        )


def _settings(args: argparse.Namespace, model: Backend, system: Mapping[str, Any]) -> dict[str, Any]:
    """A run's settings for its log: what it takes to run it again the same way (no secret)."""
    return {
        "test": args.test,
        "system": system.get("name"),
        "blind": args.blind,
        "show": args.show,
        "image_format": args.image_format,
        "prompts": str(args.prompts) if args.prompts else "default",
        "model": model.describe(),
        "max_retries": args.max_retries,
    }


def _platform_refused(error: ApiError, args: argparse.Namespace) -> str:
    if error.status == 401:
        return f"The platform at {args.url} does not accept the token ({error.message})"
    return f"The platform at {args.url} answered {error.status}: {error.message}"


def _fail(message: str, exit_code: int, state: Mapping[str, Session]) -> int:
    session = state.get("session")
    if session is not None:
        kept = "answer" if session.answered == 1 else "answers"
        message = (
            f"{message.rstrip('.')}. The session keeps its {session.answered} {kept}: run the same command "
            "again to go on."
        )
    print(f"vtt: {message}", file=sys.stderr)
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
