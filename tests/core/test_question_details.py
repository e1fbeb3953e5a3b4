"""The detail check: which year, month, numbered unit/form, amount or street of a question the best passages never name."""

import pytest

from ltm_desktop.core.question_details import Detail, details_of, is_mentioned, unmentioned_details


def labels(question: str) -> list[str]:
    return [d.label for d in details_of(question)]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("what's the rent on apartment 1 at 1300 forest ave", ["apartment 1", "Forest Avenue"]),
        ("Seacoast 1098 box 1 for 2023 (the Maple loan)", ["2023", "box 1"]),
        ("ending balance on the july 2024 checking statement", ["2024", "July"]),
        ("Did Maria pay the $1,325 after the notice in July?", ["July", "$1,325"]),
        ("what did we put in at Oak unit B", ["unit B"]),
        ("maple apt. #2 - when is rent late?", ["apartment 2"]),
        ("jan 2024 check 1046 - who was it to", ["2024", "January", "check 1046"]),
        ("FY2024 property tax for Oak", ["2024"]),
    ],
)
def test_details_are_read_from_the_question(question, expected):
    assert labels(question) == expected


@pytest.mark.parametrize(
    "question",
    [
        "when does the lease renew?",
        "which unit a tenant lives in",  # "unit a" here is a word, not unit A
        "we may pay late; can I charge a fee?",  # "may" the verb is not the month
        "what did the form say about the 14-day notice",  # "form" without a number
        "how many units do we have",
    ],
)
def test_questions_without_fixed_details_have_none(question):
    assert details_of(question) == []


def test_may_and_mar_are_months_only_next_to_a_number():
    assert labels("checks written in may 2024") == ["2024", "May"]
    assert labels("rent paid mar 3") == ["March"]


def test_a_detail_is_recognised_in_the_ways_documents_write_it():
    assert is_mentioned(Detail("year", "2023", "2023"), "Invoice date: 03/13/23")
    assert is_mentioned(Detail("year", "2023", "2023"), "Tax year 2023 (Copy B)")
    assert not is_mentioned(Detail("year", "2023", "2023"), "Fiscal Year July 1, 2024 to June 30, 2025; $12023.00")
    assert is_mentioned(Detail("month", "january", "January"), "date of loss 01/14/2024")
    assert is_mentioned(Detail("month", "september", "September"), "Sept. 1 rent")
    assert not is_mentioned(Detail("month", "july", "July"), "Statement period: June 1 - June 30, 2024")
    assert is_mentioned(Detail("numbered", "unit b", "unit B"), "Site: 14 Oak Street, Units A and B.")
    assert is_mentioned(Detail("numbered", "apartment 1", "apartment 1"), "the lease for Apt. #1, 221 Maple")
    assert is_mentioned(Detail("numbered", "apartment 3", "apartment 3"), "apartments 1, 2 and 3 share a meter")
    assert not is_mentioned(Detail("numbered", "apartment 1", "apartment 1"), "Apartment 12, 1300 Forest Avenue")
    assert not is_mentioned(Detail("numbered", "apartment 1", "apartment 1"), "Apartment 2 ... 1. Premises")
    assert is_mentioned(Detail("numbered", "check 1046", "check 1046"), "06/03 CHECK 1046 GREENLEAF -450.00")
    assert is_mentioned(Detail("amount", "1325", "$1,325"), "You owe $1,325.00 in rent")
    assert not is_mentioned(Detail("amount", "1325", "$1,325"), "You owe $1,352.00 in rent")


def test_unmentioned_details_are_those_no_passage_names():
    passages = ["Apartment 2 lease, 221 Maple Avenue. Rent $1,450.00 from September 1, 2023.",
                "Statement period: June 1 - June 30, 2024"]
    assert [d.label for d in unmentioned_details("rent for apartment 1 in 2023", passages)] == ["apartment 1"]
    assert [d.label for d in unmentioned_details("June 2024 statement, apartment 2", passages)] == []
    assert [d.label for d in unmentioned_details("july 2025 statement", passages)] == ["2025", "July"]
    assert unmentioned_details("when is rent due", []) == []


def test_a_quarter_is_named_or_covered_by_one_of_its_months():
    assert labels("escrow interest in the first quarter of 2024") == ["2024", "Q1"]
    assert labels("new deposits into escrow in Q2") == ["Q2"]
    assert labels("how much were the quarterly tax payments") == []
    q2 = Detail("quarter", "2", "Q2")
    assert is_mentioned(q2, "QUARTERLY STATEMENT. Statement period: April 1 - June 30, 2024")
    assert is_mentioned(q2, "Second quarter estimated payment")
    assert not is_mentioned(Detail("quarter", "1", "Q1"), "QUARTERLY STATEMENT. Statement period: April 1 - June 30, 2024")


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("when does the Oak Street lease renew?", ["Oak Street"]),
        ("radon test result for the basement at 14 Oak St", ["Oak Street"]),
        ("cedar ct special assessment", ["Cedar Court"]),
        ("Is the Maple Ave mortgage fixed or adjustable?", ["Maple Avenue"]),
        ("pet deposit birch ln", ["Birch Lane"]),
        ("the rent at 12 Main Street", ["Main Street"]),
        ("who plows Elm Drive", ["Elm Drive"]),
        ("when was the maple ave's boiler serviced", ["Maple Avenue"]),
        ("the rent at 12 First Street", ["First Street"]),
    ],
)
def test_a_street_is_a_detail_in_any_of_its_written_forms(question, expected):
    assert labels(question) == expected


@pytest.mark.parametrize(
    "question",
    [
        "darnell's place, 1 bed or 2?",  # "place" and "way" are prose far more often than addresses
        "once joan files the eviction, roughly how long till the court hearing",
        "what did the housing court decide",
        "when is the eviction court date",
        "is it a long drive from the office",
        "is the backup on the usb drive",
        "called dr smith about the leak",  # a doctor, not Called Drive
        "did we visit st paul for the conference",
        "the best way to pay",
    ],
)
def test_phrases_that_only_look_like_streets_are_not_details(question):
    assert details_of(question) == []


def test_a_street_is_recognised_however_the_passage_or_its_path_writes_it():
    oak = Detail("street", "oak street", "Oak Street")
    assert is_mentioned(oak, "Property: 14 OAK STREET, Portland, ME 04101")
    assert is_mentioned(oak, "Site: 14 Oak St., Unit A")
    assert is_mentioned(oak, "/home/me/Properties/14-oak-st/radon_2024.pdf")
    assert not is_mentioned(oak, "Property: 9 Birch Lane, Westbrook")
    assert not is_mentioned(oak, "the old oak tree on Street Road")
    assert is_mentioned(Detail("street", "elm drive", "Elm Drive"), "22 Elm Dr")
    passages = ["RADON TEST REPORT. Property: 9 Birch Lane, Westbrook. Result: 2.1 pCi/L"]
    assert [d.label for d in unmentioned_details("radon test at 14 Oak St", passages)] == ["Oak Street"]
    assert unmentioned_details("radon test at birch lane", passages) == []
