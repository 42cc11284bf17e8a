"""Tooling for measuring and attacking a server: load generators, benchmarks, the fuzzer and the child-server helper.

None of it is part of the product: the ``arena`` command (`client.cli`) imports this package only
when ``arena bench`` or ``arena fuzz`` runs, and nothing else in `client` or `server` imports it. It
builds on both: the client library, `server.protocol`, and a server started as ``arena serve`` in
a child process.

* `tooling.bench`: ``arena bench`` (``listing``, ``memory``, and the benchmarks below), its flags and
  figures;
* `tooling.loadgen`: ``arena bench load``, races played at a steady rate over raw websockets, from
  several load processes, against one server or several nodes over Redis;
* `tooling.idle_bench`: ``arena bench idle``, server memory per idle connection;
* `tooling.engine_bench`: ``arena bench engine``, the rules engine's moves per second, in this process;
* `tooling.fuzz`: ``arena fuzz``, random, mutated and hostile frames with every answer checked;
* `tooling.server_process`: ``arena serve`` as a child process, measured from outside (CPU time,
  resident memory, ``/healthz``, its log).
"""
