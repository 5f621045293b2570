"""The variant registry: each variant's facts (:mod:`analyzer.core.variants`) with its rules class.

Every layer above the rules asks this registry, or a :class:`~analyzer.rules.base.Variant`,
about a variant (``variant_spec(name).has_cube``, ``find_variant(name).outcome(pos)``) instead of
comparing names. Adding a variant: ``docs/adding-a-variant.md``.

>>> variant_spec("plakoto").name, rules_class("plakoto").__name__
('mahbusa', 'Mahbusa')
>>> find_variant("Dutch").spec.has_cube
False
"""

from __future__ import annotations

from analyzer.core.errors import ParseError
from analyzer.core.variants import (
    DEFAULT_VARIANT,
    VariantSpec,
    all_specs,
    cubeless_only,
    draws,
    find_spec,
    has_cube,
    register_spec,
    spec_by_name,
    title_of,
    unregister_spec,
    variant_choices,
    variant_names,
    variant_spec,
)
from analyzer.rules.base import Variant
from analyzer.rules.dutch import Dutch
from analyzer.rules.mahbusa import Mahbusa
from analyzer.rules.standard import Standard

_RULES: dict[str, type[Variant]] = {}


def _bind(rules: type[Variant]) -> None:
    spec = rules.__dict__.get("spec")
    if not isinstance(spec, VariantSpec):
        raise ValueError(f"{rules.__name__} sets no spec")
    if find_spec(spec.name) is not spec:
        raise ValueError(f"{rules.__name__}.spec is not the registered {spec.name} variant")
    _RULES[spec.name] = rules


def register_variant(rules: type[Variant]) -> VariantSpec:
    """Register a new variant: its facts (``rules.spec``) and its rules class.

    The built-in variants' facts are registered by :mod:`analyzer.core.variants` (positions need
    them) and their classes below; a variant added at run time (a test's toy) comes through here,
    and :func:`unregister_variant` takes it out again.
    """
    spec = rules.__dict__.get("spec")
    if not isinstance(spec, VariantSpec):
        raise ValueError(f"{rules.__name__} sets no spec")
    register_spec(spec)
    try:
        _bind(rules)
    except ValueError:
        unregister_spec(spec.name)
        raise
    return spec


def unregister_variant(name: str) -> None:
    """Remove a variant added by :func:`register_variant`."""
    spec = variant_spec(name)
    del _RULES[spec.name]
    unregister_spec(spec.name)


def rules_class(name: str) -> type[Variant]:
    """The rules class of a variant name or alias; :class:`ParseError` when none."""
    spec = variant_spec(name)
    try:
        return _RULES[spec.name]
    except KeyError:
        raise ParseError(f"no rules for the variant {spec.name}", token=name) from None


def find_variant(name: str) -> Variant:
    """A rules object (default options) for a variant name or alias.

    >>> find_variant("plakoto").name
    'mahbusa'
    """
    return rules_class(name)()


for _rules in (Standard, Dutch, Mahbusa):
    _bind(_rules)
if set(_RULES) != set(variant_names()):  # a variant's facts written without its rules class, or the reverse
    raise ImportError(f"variants without rules: {sorted(set(variant_names()) - set(_RULES))}")

__all__ = ["DEFAULT_VARIANT", "VariantSpec", "all_specs", "cubeless_only", "draws", "find_spec", "find_variant",
           "has_cube", "register_variant", "rules_class", "spec_by_name", "title_of", "unregister_variant",
           "variant_choices", "variant_names", "variant_spec"]
