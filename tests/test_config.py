"""Config validation: canonical form, hash, and one clear error for every kind of bad input."""
import pytest

from gen import presets
from gen.config import Config, from_dict, load_toml
from gen.errors import ConfigError

GOOD = {"name": "x-gcm", "cipher": "aes128", "mode": "gcm", "target": "portable",
        "aes": {"slicing": "sfs"}, "ghash": {"impl": "ctmul"}, "schedule": {"seed": 3}}


def test_defaults_and_flattening():
    c = from_dict(GOOD)
    assert (c.slicing, c.face, c.ghash, c.seed) == ("sfs", "off", "ctmul", 3)
    assert c.prefix == "x_gcm"
    assert c.options() == {"slicing": "sfs", "face": "off", "ghash": "ctmul", "seed": 3}


def test_canonical_form_and_hash_ignore_key_order():
    reordered = dict(reversed(list(GOOD.items())))
    assert from_dict(reordered).canonical() == from_dict(GOOD).canonical()
    assert from_dict(reordered).sha256() == from_dict(GOOD).sha256()
    other = from_dict({**GOOD, "aes": {"slicing": "ffs"}})
    assert other.sha256() != from_dict(GOOD).sha256()


def test_toml_round_trip(tmp_path):
    c = from_dict(GOOD)
    path = tmp_path / "c.toml"
    path.write_text(c.toml())
    assert load_toml(path) == c


@pytest.mark.parametrize("data, needle", [
    ({**GOOD, "cipher": "aes512"}, "aes128, aes192, aes256"),
    ({**GOOD, "colour": "red"}, "unknown key 'colour'"),
    ({**GOOD, "aes": {"slicing": "ffs", "rounds": 3}}, "unknown key aes.rounds"),
    ({**GOOD, "aes": {"slicing": "full"}}, "ffs, sfs"),
    ({**GOOD, "schedule": {"seed": -1}}, "schedule.seed"),
    ({k: v for k, v in GOOD.items() if k != "target"}, "missing key 'target'"),
    ({**GOOD, "name": "Bad Name"}, "name 'Bad Name'"),
    ({**GOOD, "target": "armv8a"}, "slicing is not an option of aes128/gcm/armv8a"),   # AES instructions
    ({"name": "x", "cipher": "speedy5", "mode": "ecb", "target": "armv8a"}, "is not built by this generator"),
    ({**GOOD, "ghash": {"impl": "pmull"}}, "ghash = 'pmull' is not available"),
    ({**GOOD, "aes": "ffs"}, "[aes] must be a table"),
])
def test_bad_input_names_the_problem(data, needle):
    with pytest.raises(ConfigError) as exc:
        from_dict(data)
    assert needle in str(exc.value)
    assert "\n" not in str(exc.value)


def test_bad_toml_file(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("name = \n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_toml(path)
    with pytest.raises(ConfigError, match="no such file"):
        load_toml(tmp_path / "missing.toml")


def test_every_preset_is_valid_and_named_after_itself():
    for name in presets.PRESETS:
        c = presets.preset(name)
        assert isinstance(c, Config) and c.name == name
        if not c.constant_time:
            assert "nct" in name, "a preset that is not constant-time says so in its name"
    assert set(presets.DEFAULTS) <= set(presets.PRESETS)


def test_unknown_preset():
    with pytest.raises(ConfigError, match="unknown preset 'nope'"):
        presets.preset("nope")
