"""Keep LanceDB's namespace REST client out of processes that never speak REST.

`import lancedb` imports `lance_namespace`, which imports the models of the generated REST
client `lance_namespace_urllib3_client`; that package's `__init__` eagerly imports every API
module and urllib3 as well: 1.2-3 s of a 2-5 s `import lancedb` measured here, for a client
graphit never uses (it opens local directories and s3:// URIs, never a REST namespace).

`defer()` registers the package without running its `__init__`: its submodules (the models
`lance_namespace` re-exports) import as usual from the real package directory, and the first
read of any other name of the package runs the real `__init__` into the same module, so
nothing is missing for code that does use the REST client. Called by `store/__init__` before
any store module imports lancedb.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from typing import Any

PACKAGE = "lance_namespace_urllib3_client"


def defer() -> None:
    if PACKAGE in sys.modules:
        return
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return  # not installed (or not a package): nothing to defer
    module = types.ModuleType(PACKAGE)
    module.__spec__ = spec
    module.__file__ = spec.origin
    module.__path__ = list(spec.submodule_search_locations)
    module.__package__ = PACKAGE
    loader = spec.loader

    def load_rest(name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        del module.__getattr__  # type: ignore[attr-defined]  # run the real __init__ once
        loader.exec_module(module)
        try:
            return module.__dict__[name]
        except KeyError:
            raise AttributeError(f"module {PACKAGE!r} has no attribute {name!r}") from None

    module.__getattr__ = load_rest  # type: ignore[method-assign]
    sys.modules[PACKAGE] = module
