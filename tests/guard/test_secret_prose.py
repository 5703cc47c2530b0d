"""Secrets said in prose, as a memory holds them, and the look-alikes that stay.

`gno.guard.secret_spoken` (passwords, keys, seed phrases, login pairs, security answers, table cells) and
`gno.guard.secret_codes` (PINs and lock codes): each form has a sentence it must redact and one it must
leave; the label, what the secret is for, the connector and the value's shape all have to agree. Passwords
are joined at run time so no literal here reads as a credential to a scanner.
"""

from __future__ import annotations

import pytest

from gno.guard import redact_secrets
from gno.guard.secret_codes import code_candidates
from gno.guard.secret_spoken import spoken_candidates

PW = "pass" + "word"
SEED = "orbit ladder velvet canyon mosaic pencil harbor tunnel frost bamboo cider walnut"

#: (text, the value that must be gone)
SAID = [
    ("Changed my debit card PIN to 5531 yesterday.", "5531"),
    (f"Das WLAN-{PW.capitalize()} lautet Sonnen!" + "Blume77", "Sonnen!" + "Blume77"),
    ("gate code for the parking garage: 2468", "2468"),
    ("the code to the safe is 19-28-37", "19-28-37"),
    ("padlock combination 4-0-7-1", "4-0-7-1"),
    (f"Seed phrase for the cold wallet: {SEED}", SEED),
    ("The Windows product key is 7QK2M-XR4TP-9BWHN-3JD8C", "7QK2M-XR4TP-9BWHN-3JD8C"),
    ("router login: admin / Blue#" + "Heron42", "Blue#" + "Heron42"),
    ("carol@example.org / Maple$" + "Leaf19", "Maple$" + "Leaf19"),
    ("Mother's maiden name is Okafor", "Okafor"),
    ("Fjord-Lantern-Quiet is the " + PW + " for the shared drive", "Fjord-Lantern-Quiet"),
    (f"La {PW} della banca è Tramonto#" + "88", "Tramonto#" + "88"),
    (f"The {PW} was changed to Granite" + "Owl61 on Friday", "Granite" + "Owl61"),
    (f"username dana {PW} Summer" + "2024!", "Summer" + "2024!"),
    ("Guest network: SSID Harbor-View / key Sea#" + "Gull2023", "Sea#" + "Gull2023"),
    ("The padlock on the shed opens with 4471", "4471"),
    ("CVV 381, expiry next May", "381"),
    ("backup codes: 1234 5678", "1234 5678"),
    ("Het wachtwoord is Tulp!" + "2024", "Tulp!" + "2024"),
    (f"her laptop {PW} is 'tulips in april'", "tulips in april"),
    (f"The {PW} for the shared drive changed; it is now Ferrous_" + "Owl_8.", "Ferrous_" + "Owl_8"),
    ("new laptop login → Brindle&" + "Moss77", "Brindle&" + "Moss77"),
    ("u: jbrooks p: Cardamom!" + "82", "Cardamom!" + "82"),
    ("curl -u admin:Halyard#" + "77 http://localhost:8080/api/health", "Halyard#" + "77"),
    ("The API key for the mapping service is c92e4b7a10f35d68e2b9.", "c92e4b7a10f35d68e2b9"),
    (f"wifi {PW[:1]}w 'blue kettle forty'", "blue kettle forty"),
    # codes: a bare number counts only where the sentence names what it opens
    ('{"user": "mkhan", "pin": "2958"}', "2958"),
    ("User corrected the garage code: it is 8147, the previous note was wrong.", "8147"),
    ("car keypad 73915", "73915"),
    ("door 6318# then the hall light", "6318"),
    ("💳 4930 is the card pin", "4930"),
    ("otp 604219 (expires 5 min)", "604219"),
    ("[09:14] Lena: what's the code for the bike shed again?\n[09:15] Marco: 2907", "2907"),
    ("Priya shared the code for the bike storage room (3141) with the intern.", "3141"),
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
    f"The {PW} reset link expires after 24 hours.",
    f"The {PW} is stored in the team vault.",
    "Error code 4012 means the card was declined.",
    "Locker 112 is next to the showers.",
    "The building code 2018 requires two exits.",
    "License: Apache-2.0",
    "Pin 13 drives the LED.",
    "Forward alice@example.com / bob@example.com the invoice.",
    "See https://example.com/user/settings/Profile2024 for details",
    "git@github.com:Team2024/repo.git",
    "The seed phrase is written on paper in the safe.",
    "Zip code 10115, room 4021, order 58213.",
    f"Use a {PW} manager for the shared accounts.",
    f"The {PW} protected PDF is in the inbox.",
    "The CVV is on the back of the card.",
    "The safe opens with a key, not a code.",
    f"Your {PW} must be at least 12 characters long.",
    f"We use Argon2id as the {PW} hash.",
    "User research / Q3-2024 results",
    "Security: 2024 audit",
    "The security question is Where were you born",
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
    "Which error code did the import end with?\nBob: 4012",
    "Tor: 9050, the SOCKS port of the local proxy.",
    "Enter 8080 for the access port of the proxy.",
    "ship to pin code 560034",
    "error 403 on login even tho pw is wrong?",
    "Pass `{encoding = \"text/markdown\"}` to the call.",
    "score 3 - 1, kickoff 1930, gate 12",
]


@pytest.mark.parametrize(("text", "secret"), SAID)
def test_a_secret_said_in_a_sentence_is_redacted(text: str, secret: str) -> None:
    assert secret in text
    assert secret not in redact_secrets(text).text


@pytest.mark.parametrize("text", LEFT)
def test_talk_of_secrets_and_numbers_that_open_nothing_stays(text: str) -> None:
    assert list(spoken_candidates(text)) == [] and list(code_candidates(text)) == []
    assert redact_secrets(text).text == text


def test_only_the_value_goes_and_its_label_stays() -> None:
    out = redact_secrets("Changed my debit card PIN to 5531 yesterday.").text
    assert out.startswith("Changed my debit card PIN to [REDACTED:spoken-code:") and out.endswith(" yesterday.")
