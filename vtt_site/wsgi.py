import os
import threading

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vtt_site.settings")
application = get_wsgi_application()

if settings.TASKS_IN_THREADS:
    # make run: the jobs a stopped server left running in its threads start again in this one's, and the
    # periodic tasks (sweeps, deadlines, ranking checks) are sent from a thread, there being no beat.
    from vtt_site.job_sweep import job_resume_orphans
    from vtt_site.queueing import beat_in_process

    threading.Thread(target=job_resume_orphans, name="resume-jobs", daemon=True).start()
    beat_in_process()
