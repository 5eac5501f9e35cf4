"""Settings declared once, by the app that reads them (issue 47, item 3; decision 0082).

Each app declares its settings in `<app>/conf.py`: a subclass of `AppSettings` whose attributes are
`Setting`s (the kind of value, the default, one line of help, optionally a check), and one instance of it
named `conf`. Code reads them as typed attributes (`from truthing.conf import conf;
conf.TRUTHING_CHECK_SHARE`). The environment variable of a setting is its name unless it says otherwise.

Read once: an instance parses all its variables at its first read and keeps the values; a bad value is
refused with a sentence that names the variable and what it should be (`ImproperlyConfigured`), and
Django's system checks (`manage.py check`, `migrate`, `runserver`) read every app's settings at start, so
a bad value stops the platform before it serves. Unset and empty both mean the default, so that
`.env.example` can list `X=`.

Overriding, for a test or a command: a Django setting of the same name wins over the environment's
value (pytest-django's `settings.TRUTHING_CHECK_SHARE = 1.0`, `override_settings(TRUTHING_CHECK_SHARE=0)`),
so Django restores it afterwards. No declared name is a setting of the settings module
(tests/vtt_site/test_app_settings.py), so an override is only ever a test's or a command's.

The settings Django itself reads stay in `vtt_site/settings.py`; the environment variables they come from
are declared the same way in `vtt_site/conf.py` (read there without overrides: Django's settings do not
exist yet). `.env.example` is written from all the declarations (`scripts/make_env_example.py`).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import textwrap
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar, overload

from django.core.exceptions import ImproperlyConfigured

T = TypeVar("T")
_MISSING = object()
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@dataclass(frozen=True)
class Kind(Generic[T]):
    """How a variable's text becomes a value: `what` completes "X must be ..." when it cannot."""

    what: str
    parse: Callable[[str], T]
    show: Callable[[T], str] = str


def _flag(raw: str) -> bool:
    if raw.lower() in _TRUE:
        return True
    if raw.lower() in _FALSE:
        return False
    raise ValueError(raw)


def _names(raw: str) -> list[str]:
    return [item.strip() for item in raw.split(",") if item.strip()]


INT: Kind[int] = Kind("an integer", int)
FLOAT: Kind[float] = Kind("a number", float)
BOOL: Kind[bool] = Kind("one of 1/0, true/false, yes/no, on/off", _flag, lambda value: "1" if value else "0")
STR: Kind[str] = Kind("text", str)
PATH: Kind[Path] = Kind("a path", Path)
LIST: Kind[list[str]] = Kind("a comma-separated list", _names, ",".join)


def optional(kind: Kind[T]) -> Kind[T | None]:
    """The kind, or None when unset: the default then belongs to the code that reads it."""
    return Kind(kind.what, kind.parse, lambda value: "" if value is None else kind.show(value))


def between(low: float, high: float) -> Callable[[float], str | None]:
    return lambda value: None if low <= value <= high else f"between {low:g} and {high:g}"


def at_least(low: float) -> Callable[[float], str | None]:
    return lambda value: None if value >= low else f"at least {low:g}"


class Setting(Generic[T]):
    """One declared setting. `default` may be a function for a default made from another setting: it is
    called at the first read with the values of the settings declared before it in the same app, and
    `.env.example` shows the variable empty (`help` says what empty means).
    `example` replaces the default shown there (a long built-in value). `check` returns what the value
    must be when it is not, or None."""

    def __init__(
        self,
        kind: Kind[T],
        default: T | Callable[[Mapping[str, Any]], T],
        help: str,
        *,
        env: str = "",
        check: Callable[[T], str | None] | None = None,
        example: str | None = None,
    ) -> None:
        self.kind, self.default, self.help = kind, default, help
        self.env, self.check, self.example = env, check, example
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name
        self.env = self.env or name

    @overload
    def __get__(self, instance: None, owner: type) -> Setting[T]: ...
    @overload
    def __get__(self, instance: AppSettings, owner: type) -> T: ...
    def __get__(self, instance: AppSettings | None, owner: type) -> Setting[T] | T:
        if instance is None:
            return self
        return instance.value(self.name)

    def read(self, environ: Mapping[str, str], earlier: Mapping[str, Any]) -> T:
        """The value of the variable in `environ`, or the default; ImproperlyConfigured when bad."""
        raw = environ.get(self.env, "").strip()
        if not raw:
            return self.default(earlier) if callable(self.default) else self.default
        try:
            value = self.kind.parse(raw)
        except ValueError:
            raise ImproperlyConfigured(self.refusal(raw, self.kind.what)) from None
        complaint = self.check(value) if self.check is not None else None
        if complaint is not None:
            raise ImproperlyConfigured(self.refusal(raw, complaint))
        return value

    def refusal(self, raw: str, should: str) -> str:
        return f"{self.env} must be {should}; got {raw!r} (the setting: {self.help})"

    def shown(self) -> str:
        """The value `.env.example` gives the variable."""
        if self.example is not None:
            return self.example
        if callable(self.default):
            return ""
        return self.kind.show(self.default)


class AppSettings:
    """The settings of one app: subclass it, declare `Setting`s as class attributes, make one instance.

    The docstring's first line titles the app's group in `.env.example`."""

    # Off for the variables Django's own settings are made from (vtt_site.conf): they are read while
    # Django's settings are being made, so cannot be overridden through them.
    django_overrides: ClassVar[bool] = True

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        self._environ = environ
        self._values: dict[str, Any] | None = None

    @classmethod
    def declarations(cls) -> list[Setting[Any]]:
        """The class's settings in the order they are declared (base classes first)."""
        found: dict[str, Setting[Any]] = {}
        for klass in reversed(cls.__mro__):
            found |= {name: item for name, item in vars(klass).items() if isinstance(item, Setting)}
        return list(found.values())

    def load(self) -> dict[str, Any]:
        """Every value, parsed once: the first read of any setting reads them all, so one bad variable
        stops the first read of its app, whichever setting it is."""
        if self._values is None:
            environ = os.environ if self._environ is None else self._environ
            values: dict[str, Any] = {}
            for item in self.declarations():
                values[item.name] = item.read(environ, values)
            self._values = values
        return self._values

    def value(self, name: str) -> Any:
        if self.django_overrides:
            from django.conf import settings

            if settings.configured:
                override = getattr(settings, name, _MISSING)
                if override is not _MISSING:
                    return override
        return self.load()[name]


def installed() -> Iterator[AppSettings]:
    """The `conf` of vtt_site, then of every installed app that has a `conf` module, in INSTALLED_APPS'
    order (found by name, as Django finds admin modules: vtt_site imports no app)."""
    from django.apps import apps

    yield importlib.import_module("vtt_site.conf").conf
    for app in apps.get_app_configs():
        if importlib.util.find_spec(f"{app.name}.conf") is not None:
            module = importlib.import_module(f"{app.name}.conf")
            if isinstance(getattr(module, "conf", None), AppSettings):
                yield module.conf


def check_installed(**_: Any) -> list[Any]:
    """Django's system check: every app's settings read at start, each bad value an error that says why
    (registered below, when the settings module imports this one)."""
    from django.core.checks import Error

    errors = []
    for conf in installed():
        try:
            conf.load()
        except ImproperlyConfigured as exc:
            errors.append(Error(str(exc), obj=type(conf).__module__, id="vtt_site.E001"))
    return errors


HEADER = """\
# Every environment variable the platform reads, with its default, grouped by the app that declares it
# (`<app>/conf.py`). Written by `python scripts/make_env_example.py`: do not edit by hand. `make run`
# copies it to .env with a generated SECRET_KEY; real environment variables override .env. Unset and
# empty both mean the default.
"""


def env_example(groups: list[AppSettings]) -> str:
    """The text of `.env.example`: one group per app, each setting with its help as a comment."""
    parts = [HEADER]
    for conf in groups:
        title = (type(conf).__doc__ or type(conf).__module__).strip().splitlines()[0]
        parts.append(f"\n# --- {title} ({type(conf).__module__})\n")
        for item in type(conf).declarations():
            comment = textwrap.wrap(item.help, width=106, break_on_hyphens=False)
            parts.extend(f"# {line}\n" for line in comment)
            parts.append(f"{item.env}={item.shown()}\n")
    return "".join(parts)


def _register_check() -> None:
    # Here, not in an AppConfig: vtt_site is not an installed app, and this module is imported by the
    # settings module, so the check is registered in every process before Django runs any.
    from django.core import checks

    checks.register(check_installed, "vtt_site")


_register_check()
