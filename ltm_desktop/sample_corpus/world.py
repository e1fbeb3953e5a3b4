"""The small property-management business the sample corpus describes: its places, people and vendors.

Everything is drawn from one seeded random generator, so the same seed gives the same business, the same
documents and the same questions. Names and addresses are invented.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date

MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)

FIRST_NAMES = (
    "Maria", "Jorge", "Aisha", "Tomasz", "Priya", "Kevin", "Lena", "Marcus", "Sofia", "Darnell", "Hannah",
    "Wei", "Olga", "Samuel", "Fatima", "Brendan", "Yuki", "Carlos", "Nadia", "Ethan", "Grace", "Ibrahim",
)
LAST_NAMES = (
    "Alvarez", "Kowalski", "Okafor", "Nguyen", "Brennan", "Haddad", "Lindqvist", "Patel", "Moreau", "Delgado",
    "Fitzgerald", "Yamamoto", "Novak", "Mensah", "Ricci", "Thibodeau", "Castillo", "Whitaker", "Petrov", "Doucette",
)
PETS = (("dog", "a beagle named Biscuit"), ("cat", "two indoor cats"), ("dog", "a labrador named Juniper"))


def money(amount: float) -> str:
    return f"${amount:,.2f}"


def long_date(d: date) -> str:
    return f"{MONTHS[d.month - 1]} {d.day}, {d.year}"


def short_date(d: date) -> str:
    return f"{d.month:02d}/{d.day:02d}/{d.year}"


@dataclass
class Tenant:
    name: str
    co_tenant: str | None
    email: str
    phone: str

    @property
    def household(self) -> str:
        return f"{self.name} and {self.co_tenant}" if self.co_tenant else self.name

    @property
    def last(self) -> str:
        return self.name.split()[-1]


@dataclass
class Unit:
    key: str  # short id used in document ids: oak-a
    prop: Property
    label: str  # "Unit A"
    bedrooms: int
    rent: float
    tenant: Tenant
    lease_start: date
    lease_months: int
    pet: tuple[str, str] | None = None
    parking_space: str | None = None
    commercial: bool = False

    @property
    def address(self) -> str:
        return f"{self.prop.street}, {self.label}" if self.label else self.prop.street

    @property
    def lease_end(self) -> date:
        y, m = divmod(self.lease_start.month - 1 + self.lease_months, 12)
        first_after = date(self.lease_start.year + y, m + 1, 1)
        return date.fromordinal(first_after.toordinal() - 1)


@dataclass
class Property:
    key: str
    street: str
    city: str
    zip_code: str
    nickname: str  # how the owner talks about it: "the Oak Street duplex"
    kind: str
    year_built: int
    parcel: str
    assessed_land: int
    assessed_building: int
    mill_rate: float
    units: list[Unit] = field(default_factory=list)

    @property
    def full_address(self) -> str:
        return f"{self.street}, {self.city}, ME {self.zip_code}"


@dataclass(frozen=True)
class Vendor:
    key: str
    name: str
    trade: str
    contact: str
    address: str
    tin: str


@dataclass
class World:
    rng: random.Random
    company: str
    owner: str
    office: str
    bank: str
    account_last4: str
    deposit_account_last4: str
    properties: list[Property]
    vendors: dict[str, Vendor]
    extras: dict[str, object] = field(default_factory=dict)  # values drawn once and shared by several documents

    def prop(self, key: str) -> Property:
        return next(p for p in self.properties if p.key == key)

    def unit(self, key: str) -> Unit:
        return next(u for p in self.properties for u in p.units if u.key == key)

    @property
    def units(self) -> list[Unit]:
        return [u for p in self.properties for u in p.units]


def _tenant(rng: random.Random, used: set[str], couple: bool) -> Tenant:
    while True:
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        if first not in used and last not in used:
            break
    used.update((first, last))
    co = None
    if couple:
        while True:
            other = rng.choice(FIRST_NAMES)
            if other not in used:
                break
        used.add(other)
        co = f"{other} {last}"
    phone = f"(207) 555-{rng.randrange(1000, 9999)}"
    return Tenant(f"{first} {last}", co, f"{first.lower()}.{last.lower()}@examplemail.com", phone)


def build_world(seed: int) -> World:
    """The business for a seed: five properties, eleven units with tenants, a bank, a dozen vendors."""
    rng = random.Random(seed)
    props = [
        Property("oak", "14 Oak Street", "Portland", "04101", "the Oak Street duplex", "two-family house", 1924,
                 "112-A-031", rng.randrange(90, 130) * 1000, rng.randrange(260, 340) * 1000, 13.33),
        Property("maple", "221 Maple Avenue", "South Portland", "04106", "the Maple Avenue fourplex",
                 "four-unit apartment building", 1958, "R07-044-019", rng.randrange(110, 160) * 1000,
                 rng.randrange(480, 620) * 1000, 17.93),
        Property("birch", "9 Birch Lane", "Westbrook", "04092", "the Birch Lane house", "single-family house", 1987,
                 "034-112-007", rng.randrange(70, 100) * 1000, rng.randrange(190, 260) * 1000, 16.85),
        Property("cedar", "57 Cedar Court", "Portland", "04103", "the Cedar Court condo", "condominium unit", 2006,
                 "221-C-004-003", rng.randrange(40, 60) * 1000, rng.randrange(210, 280) * 1000, 13.33),
        Property("forest", "1300 Forest Avenue", "Portland", "04103", "the Forest Avenue building",
                 "mixed-use building (store front and two apartments)", 1911, "145-F-012",
                 rng.randrange(150, 210) * 1000, rng.randrange(520, 700) * 1000, 13.33),
    ]
    used: set[str] = set()
    layout = [
        ("oak", "oak-a", "Unit A", 2), ("oak", "oak-b", "Unit B", 3),
        ("maple", "maple-1", "Apartment 1", 1), ("maple", "maple-2", "Apartment 2", 2),
        ("maple", "maple-3", "Apartment 3", 2), ("maple", "maple-4", "Apartment 4", 1),
        ("birch", "birch", "", 3), ("cedar", "cedar", "Unit 3", 2),
        ("forest", "forest-shop", "Ground-Floor Store", 0), ("forest", "forest-2", "Apartment 2", 1),
        ("forest", "forest-3", "Apartment 3", 2),
    ]
    pet_pool = list(PETS)
    for n, (pkey, ukey, label, beds) in enumerate(layout):
        prop = next(p for p in props if p.key == pkey)
        commercial = ukey == "forest-shop"
        base = {0: 2600, 1: 1250, 2: 1575, 3: 1900}[beds] if not commercial else 3150
        rent = float(base + rng.randrange(0, 12) * 25)
        start = date(2024, rng.choice((1, 3, 5, 6, 8, 9)), 1) if n % 3 else date(2023, rng.choice((7, 9, 10)), 1)
        unit = Unit(
            key=ukey, prop=prop, label=label, bedrooms=beds, rent=rent,
            tenant=_tenant(rng, used, couple=beds >= 2 and rng.random() < 0.6),
            lease_start=start, lease_months=36 if commercial else 12, commercial=commercial,
        )
        if not commercial and ukey != "cedar" and pet_pool and rng.random() < 0.5:
            unit.pet = pet_pool.pop(0)
        if pkey in ("maple", "forest") and not commercial and rng.random() < 0.7:
            unit.parking_space = f"space {rng.randrange(1, 9)}"
        prop.units.append(unit)
    # A few facts the letters and e-mails rely on are fixed rather than drawn.
    units = {u.key: u for p in props for u in p.units}
    units["cedar"].pet = ("cat", "one cat named Pepper")
    units["maple-1"].lease_start = date(2024, 3, 1)  # empty in January after the previous tenant left
    units["oak-b"].lease_start = date(2023, 10, 1)  # the tenants leave when this lease ends
    units["forest-2"].lease_start = date(2023, 9, 1)
    shop = next(u for u in props[4].units if u.commercial)
    shop.tenant = Tenant("Rosalind Thibodeau", None, "orders@crumbandcrustbakery.com", "(207) 555-0188")
    vendors = {
        v.key: v
        for v in (
            Vendor("plumber", "Reliable Plumbing & Heating", "plumbing", "Gus Amaral", "88 Warren Ave, Portland, ME", f"84-{rng.randrange(1000000, 9999999)}"),
            Vendor("electric", "Bright Line Electric LLC", "electrical", "Tanya Roy", "12 Industrial Way, Gorham, ME", f"81-{rng.randrange(1000000, 9999999)}"),
            Vendor("roofer", "Summit Roofing Co.", "roofing", "Pete Larrabee", "430 Main St, Westbrook, ME", f"82-{rng.randrange(1000000, 9999999)}"),
            Vendor("landscape", "Greenleaf Grounds", "landscaping and lawn care", "Mike Soucy", "5 Pleasant Hill Rd, Scarborough, ME", f"85-{rng.randrange(1000000, 9999999)}"),
            Vendor("snow", "Casco Snow Removal", "snow plowing and sanding", "Dee Morin", "201 Route 1, Falmouth, ME", f"86-{rng.randrange(1000000, 9999999)}"),
            Vendor("pest", "North Woods Pest Control", "pest control", "Alan Pike", "77 Bridge St, Saco, ME", f"83-{rng.randrange(1000000, 9999999)}"),
            Vendor("hvac", "Coastal Comfort HVAC", "heating and cooling", "Jen Beaulieu", "19 Commerce Dr, South Portland, ME", f"87-{rng.randrange(1000000, 9999999)}"),
            Vendor("painter", "Fresh Coat Painting", "interior painting", "Luis Ortega", "3 Brook Rd, Windham, ME", f"88-{rng.randrange(1000000, 9999999)}"),
            Vendor("appliance", "Harbor Appliance Repair", "appliance repair", "Sam Kerr", "60 Ocean Ave, Portland, ME", f"89-{rng.randrange(1000000, 9999999)}"),
            Vendor("locksmith", "Keystone Lock & Key", "locksmith", "Ray Dube", "9 Elm St, Biddeford, ME", f"80-{rng.randrange(1000000, 9999999)}"),
        )
    }
    return World(
        rng=rng,
        company="Harborview Property Management LLC",
        owner="Dana Whitfield",
        office="410 Harbor Road, Suite 2, Portland, ME 04101",
        bank="First Harbor Bank",
        account_last4=str(rng.randrange(1000, 9999)),
        deposit_account_last4=str(rng.randrange(1000, 9999)),
        properties=props,
        vendors=vendors,
    )
