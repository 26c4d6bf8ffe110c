"""The Jinja2 environment: StrictUndefined, and filters that refuse Undefined too."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import jinja2

TEMPLATE_DIR = Path(__file__).resolve().parent.parent / "templates"


def _strict(fn):
    def wrapper(value, *args):
        if isinstance(value, jinja2.Undefined):
            value._fail_with_undefined_error()
        return fn(value, *args)
    wrapper.__name__ = fn.__name__
    return wrapper


@_strict
def c_hex32(value: int) -> str:
    return f"0x{value & 0xFFFFFFFF:08x}u"


@_strict
def c_upper(value: str) -> str:
    return value.upper()


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATE_DIR)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=False,
        autoescape=False,
    )
    env.filters["c_hex32"] = c_hex32
    env.filters["c_upper"] = c_upper
    return env


def render(template: str, **context) -> str:
    return environment().get_template(template).render(**context)
