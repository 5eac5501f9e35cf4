"""Take a published test with a trivial "system" (answers yes when the image is bright in the region).

python examples/take_a_test.py http://127.0.0.1:8000 vtt_… 1
"""

import sys

from PIL import ImageStat
from vtt_client import Client, ExistQuestion


def my_system(image, question) -> bool:
    if isinstance(question, ExistQuestion):
        box = question.region
        crop = image.crop((int(box.x0), int(box.y0), int(box.x1), int(box.y1))).convert("L")
        if crop.width == 0 or crop.height == 0:
            return False
        return ImageStat.Stat(crop).mean[0] > 110  # the region's mean brightness
    return True


def main(base_url: str, token: str, test_id: int) -> None:
    with Client(base_url, token) as client:
        session = client.session(test_id)  # enrols, or resumes after a crash
        for question in session.questions():
            session.answer(question, my_system(question.pil_image(), question))
        score = session.score()
        print(f"accuracy {score.accuracy.value:.3f} (95% {score.accuracy.low:.3f}-{score.accuracy.high:.3f})")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
