"""What the crowd API's views share."""

from __future__ import annotations

from annotations.errors import AnnotationErrorCode
from crowd.errors import CrowdErrorCode
from kernel.errors import CoreErrorCode
from vtt_site.api.schema import error_codes
from vtt_site.leases import LeaseErrorCode

# The crowd's codes, the annotation app's (a collection or image not found, an annotation refused), the
# engine core's (a scene read) and a lease not held.
CROWD_ERRORS = error_codes("Crowd", CrowdErrorCode, AnnotationErrorCode, CoreErrorCode, LeaseErrorCode)
