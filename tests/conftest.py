"""Suite-wide settings."""

from hypothesis import settings

# Timing deadlines make property tests flaky on a shared 2-core CI machine; correctness, not
# speed, is what they check (speed is measured in benchmarks/).
settings.register_profile("trustprobe", deadline=None)
settings.load_profile("trustprobe")
