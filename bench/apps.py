from django.apps import AppConfig


class BenchConfig(AppConfig):
    """The benchmarks as an app only so that `tideline` finds `tideline bench` (bench.cli); no models."""

    name = "bench"
    verbose_name = "Benchmarks"
