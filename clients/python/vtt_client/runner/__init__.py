"""The model runner: `vtt take` takes a whole test with a chat model (docs/guides/vision-language-models.md).

cli.py (the command) -> take.py (one question after another, from the server's position) ->
conversation.py (the chat: prompts.py's templates, drawing.py's image) -> model.py (the backends and
their retries; openai_chat.py) -> replies.py (yes, no or unclear, and p_yes); log.py (the JSONL log,
the progress line and the summary).
"""
