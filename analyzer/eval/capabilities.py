"""What an engine can do, as a value: :class:`EngineCapabilities`, the capabilities the
:class:`~analyzer.eval.protocol.Evaluator` protocol states (``variant``, ``cubeful``,
``variance_reduction``, ``max_ply``), read from an engine or, without loading any net, from the class of
the engine that evaluates a variant (:func:`engine_capabilities`). A review's settings are checked
against them (:class:`analyzer.analysis.settings.ReviewSettings`), as is the depth of ``hint``.

>>> engine_capabilities("dutch").max_ply, engine_capabilities("standard").cubeful
(2, True)
"""

from __future__ import annotations

from dataclasses import dataclass

from analyzer.core.errors import SettingsError
from analyzer.core.variants import variant_spec
from analyzer.eval.engine import Engine
from analyzer.eval.protocol import Evaluator
from analyzer.eval.variants.engine import VariantEngine

__all__ = ["EngineCapabilities", "engine_capabilities"]


@dataclass(frozen=True, slots=True)
class EngineCapabilities:
    """What an engine can do, as :class:`~analyzer.eval.protocol.Evaluator` states it: the
    ``variant`` it evaluates, whether its game has a cube (``cubeful``), whether its rollouts
    reduce variance and may be truncated (``variance_reduction``), its deepest search
    (``max_ply``)."""

    variant: str
    cubeful: bool
    variance_reduction: bool
    max_ply: int

    @classmethod
    def of(cls, engine: Evaluator) -> EngineCapabilities:
        """The capabilities an engine states (a stand-in's too).

        >>> EngineCapabilities.of(Engine()) == engine_capabilities("standard")
        True
        """
        return cls(engine.variant, bool(engine.cubeful), bool(engine.variance_reduction), int(engine.max_ply))

    def check_ply(self, ply: int, setting: str = "ply") -> None:
        """Raise :class:`SettingsError` (naming ``setting``) unless ``0 <= ply <= max_ply``.

        >>> engine_capabilities("standard").check_ply(3)
        >>> engine_capabilities("mahbusa").check_ply(3)
        Traceback (most recent call last):
        ...
        analyzer.core.errors.SettingsError: ply must be 0..2 for mahbusa (the deepest search of its engine)
        """
        if not 0 <= ply <= self.max_ply:
            raise SettingsError(f"must be 0..{self.max_ply} for {self.variant} (the deepest search of its engine)",
                                setting=setting)


def engine_capabilities(variant: str) -> EngineCapabilities:
    """The capabilities of the engine that reviews ``variant`` (a name or alias), from its class: no
    net is loaded. A variant with the cube is reviewed by the standard :class:`Engine`, one without by
    its :class:`VariantEngine` (:func:`~analyzer.analysis.variants.load_variant_engine`).

    >>> engine_capabilities("plakoto")
    EngineCapabilities(variant='mahbusa', cubeful=False, variance_reduction=False, max_ply=2)
    """
    spec = variant_spec(variant)
    engine: type[Engine] | type[VariantEngine] = Engine if spec.has_cube else VariantEngine
    return EngineCapabilities(spec.name, engine.cubeful, engine.variance_reduction, engine.max_ply)
