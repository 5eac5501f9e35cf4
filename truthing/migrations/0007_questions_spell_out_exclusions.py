"""Instantiation questions name the labels they leave out (issue 36): "Is there a vehicle other than
vehicle 1 in the designated region?", with `excluding` in the structured form. Steps stored before are
rewritten the same way, from the labels their stream had made before them."""

from django.db import migrations

from kernel.kinds import spelled_out


def spell_out_exclusions(apps, schema_editor):
    Step = apps.get_model("truthing", "Step")
    stream_id, made, changed = None, [], []
    rows = Step.objects.only("id", "stream_id", "index", "question", "text", "label").order_by("stream_id", "index")
    for step in rows.iterator(chunk_size=2000):
        if step.stream_id != stream_id:
            stream_id, made = step.stream_id, []
        question, text = spelled_out(step.question, step.text, made)
        if question != step.question or text != step.text:
            step.question, step.text = question, text
            changed.append(step)
        if step.label:
            made.append(step.label)
        if len(changed) >= 2000:
            Step.objects.bulk_update(changed, ["question", "text"])
            changed = []
    Step.objects.bulk_update(changed, ["question", "text"])


class Migration(migrations.Migration):
    dependencies = [("truthing", "0006_stream_exposure")]

    # Backwards, the rewritten questions stay as they are: the code before this migration reads a
    # question's fields by name and passes over `excluding`.
    operations = [migrations.RunPython(spell_out_exclusions, migrations.RunPython.noop)]
