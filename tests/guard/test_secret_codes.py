"""Codes said in a sentence (`gno.guard.secret_codes`), and the numbers that are not codes.

A bare number is a code only where the sentence names something it opens; each form here has a sentence
it must redact and numbers around it that must stay.
"""

from __future__ import annotations

import pytest

from gno.guard import redact_secrets
from gno.guard.secret_codes import code_candidates

#: (text, the value that must be gone)
SAID = [
    ("PUK for the spare SIM: 20481736", "20481736"),
    ("Screen Time passcode on the tablet is 0626.", "0626"),
    ("Pincode van de kluis op zolder: 915273", "915273"),
    ("Portkoden är 4539, tryck sedan på nyckeln.", "4539"),
    ("Kod do domofonu: 1256", "1256"),
    ("Türcode Hintereingang: 3490 (gilt ab Montag)", "3490"),
    ("Código do cadeado da bicicleta: 8-1-5-3", "8-1-5-3"),
    ("Code de la porte d'entrée : 72B41", "72B41"),
    ("Mailbox combo (post room, box 38): 19-27-4", "19-27-4"),
    ("the padlock on the storage cage is 1066 now", "1066"),
    ("garage keypad -> 5172", "5172"),
    ("The hotel room safe is set to 1707, I'll change it on Friday.", "1707"),
    ("Type 1357 on the keypad to disarm, you have thirty seconds.", "1357"),
    ("At the garage door, punch in 6620 then press the star key.", "6620"),
    ("4471 opens the shed, the big padlock on the left.", "4471"),
    ("Board call Thursday, meeting passcode 884213.", "884213"),
    ("the user keeps the same 6-digit code, 731904, for the front gate", "731904"),
]

LEFT = [
    "Error code 4012 means the card was declined.",
    "Room 4021, gate B12, flight LH4521, order 58213.",
    "Pin 13 drives the LED.",
    "Alarm: 0700, then the standup at 0930.",
    "The lock file is 4096 bytes.",
    "The safe is 1200 mm wide and the door 2040 mm high.",
    "The gate closes at 2200 on weekdays.",
    "Type 1234 in the quantity field to order a box.",
    "Enter 2024 as the year of the report.",
    "Postal code 10115, Berlin.",
    "Safe harbor rules: 2018 revision.",
]


@pytest.mark.parametrize(("text", "secret"), SAID)
def test_a_code_said_in_a_sentence_is_redacted(text: str, secret: str) -> None:
    assert secret in text
    assert secret not in redact_secrets(text).text


@pytest.mark.parametrize("text", LEFT)
def test_numbers_that_open_nothing_stay(text: str) -> None:
    assert list(code_candidates(text)) == []
    assert redact_secrets(text).text == text
