"""Names from the urban-street vocabulary (annotations/vocabularies/urban-street.json).

Object types, attribute values and relationship predicates, spelled exactly as in the vocabulary file;
tests check them against the file. The other synthetic modules take their names from here.
"""

PERSON = "person"
VEHICLE = "vehicle"

MALE, FEMALE = "male", "female"
CHILD, ADULT = "child", "adult"
STANDING, WALKING, RUNNING, SITTING, CROSSING = (
    "standing still",
    "walking",
    "running",
    "sitting",
    "crossing the street",
)
ON_SIDEWALK, ON_STREET = "on sidewalk", "on street"
CARRYING = "carrying something"
HAT = "wearing a hat"
INTERACTING = "interacting with another object"

CAR, TRUCK, BUS, MOTORCYCLE, BICYCLE = "car", "truck", "bus", "motorcycle", "bicycle"
LIGHT, DARK = "light-colored", "dark-colored"
MOVING, PARKED = "moving", "parked"
TIRE_COUNTS = ("none", "one", "two", "more than two")

TALKING = "talking"
WALKING_TOGETHER = "walking together"
TALLER = "taller than"
CLOSER = "closer than"
OCCLUDING = "occluding"
RIDING = "driving or riding"
ENTERING = "entering or exiting"
LARGER = "larger than"
