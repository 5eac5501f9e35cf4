"""The truthing API: tests (admins), the operator queue and its work (operators), adjudication
(reviewers). One thin view per operation; accounts/roles.py says who may call each."""

from kernel.errors import CoreErrorCode
from truthing.bridge import EngineErrorCode
from truthing.errors import TruthingErrorCode
from vtt_site.api.schema import error_codes
from vtt_site.errors import SiteErrorCode
from vtt_site.leases import LeaseErrorCode

# The app's codes, the statistics a test is built on (read through truthing.bridge), a stream or check
# not held, and an audit's job limit.
TRUTHING_ERRORS = error_codes(
    "Truthing",
    TruthingErrorCode,
    EngineErrorCode.STATISTICS_NOT_FOUND,
    EngineErrorCode.STATISTICS_NOT_READY,
    EngineErrorCode.BAD_SETTING,
    # An engine setting the core refuses in combination (a test's settings): answered since before
    # issue 49, undeclared until the schema fuzz's sequences, reshaped by the bucket operations, met it.
    CoreErrorCode.INVALID_SETTING,
    LeaseErrorCode,
    SiteErrorCode.TOO_MANY_JOBS,
)
