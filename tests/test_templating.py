"""The template environment refuses undefined names, in templates and in custom filters."""
import jinja2
import pytest

from gen.templating import environment


def test_undefined_variable_is_an_error():
    with pytest.raises(jinja2.UndefinedError):
        environment().from_string("{{ missing }}").render()


def test_custom_filters_refuse_undefined():
    for flt in ("c_hex32", "c_upper"):
        with pytest.raises(jinja2.UndefinedError):
            environment().from_string("{{ missing | %s }}" % flt).render()
    assert environment().from_string("{{ 255 | c_hex32 }}").render() == "0x000000ffu"
