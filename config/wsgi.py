import gc
import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

# Import every view now rather than on the first request, then move everything loaded so far (it
# lives as long as the process) out of the cyclic garbage collector's way: its collections during
# requests then walk only what requests made, not some 130,000 start-up objects (docs/performance.md).
get_resolver().url_patterns  # noqa: B018  (the import is the point)
gc.freeze()
