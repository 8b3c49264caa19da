"""What every test shares: the hypothesis profiles (``tests/hypothesis_profiles.py``), registered
here, before the hypothesis plugin loads the one ``--hypothesis-profile`` names."""

import tests.hypothesis_profiles  # noqa: F401  (registers the profiles)
