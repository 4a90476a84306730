"""Finding and reading the rule profiles shipped in ``seeds/profiles/``."""

from __future__ import annotations

from pathlib import Path

from .rules.errors import ProfileError
from .rules.profile import Profile, parse_profile

#: the checkout's ``seeds/``, which ``controller/seeds`` links to; an installed package carries the seed texts and
#: the profiles in a real ``controller/seeds/``
SEEDS_DIR = (Path(__file__).resolve().parent / "seeds").resolve()
PROFILES_DIR = SEEDS_DIR / "profiles"


def profile_names() -> list[str]:
    return sorted(path.stem for path in PROFILES_DIR.glob("*.toml"))


def load_profile(name_or_path: str | Path) -> Profile:
    """A shipped profile by name (``fr-2007``), or any profile file by path."""
    path = Path(name_or_path)
    if path.suffix != ".toml":
        path = PROFILES_DIR / f"{name_or_path}.toml"
        if not path.exists():
            raise ProfileError(str(name_or_path), "name", None,
                               f"no such profile; shipped: {', '.join(profile_names())}")
    return parse_profile(path.read_text(encoding="utf-8"), str(path))
