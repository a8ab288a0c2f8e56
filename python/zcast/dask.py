"""zcast's codecs on every dask worker.

Each process decides for itself which ``cast_value`` / ``scale_offset`` zarr uses, and a worker
that opens a store itself never ran the client's ``zcast.zarr.use()``: zarr may then pick
another installed cast_value, and float8 / bfloat16 arrays fail there. Two ways reach every
process (python/README.md, "Dask and other processes"):

* this worker plugin, for a ``distributed`` cluster; the scheduler keeps it and runs it on every
  worker that joins later, a restarted one included::

      from distributed import Client
      import zcast.dask
      client = Client(cluster)
      client.register_plugin(zcast.dask.UseZcast())

* the environment, for any process started after it is set (dask workers, multiprocessing,
  batch jobs): zarr's configuration reads ``ZARR_CODECS__CAST_VALUE=zcast.zarr.CastValue`` and
  ``ZARR_CODECS__SCALE_OFFSET=zcast.zarr.ScaleOffset`` when zarr is imported
  (:data:`zcast.zarr.ENVIRONMENT` holds both); zarr then loads zcast's codecs and data types
  through the package's entry points, without any import of zcast.

Needs ``distributed`` (``pip install "dask[distributed]"``).
"""

from __future__ import annotations

import os
from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin

__all__ = ["UseZcast"]


class UseZcast(WorkerPlugin):
    """Makes the worker process use zcast's cast_value and scale_offset (``zcast.zarr.use()``,
    for the rest of the process) and registers zcast's extra data types. It also sets
    :data:`zcast.zarr.ENVIRONMENT` in the worker's environment, so processes the worker starts
    inherit the choice."""

    name = "zcast.dask.UseZcast"  # registering it again replaces it: one per cluster

    def setup(self, worker: Any = None) -> None:
        import zcast.zarr

        zcast.zarr.use()
        os.environ.update(zcast.zarr.ENVIRONMENT)
