"""The readers of a wiki page against the wiki's own rule (a person reads a page when they may view
its space and, at every restricted level of the page's tree, they are named or in a named group),
over random people, groups, memberships, space permissions and restrictions: the readers never
admit a person the wiki refuses, admit everyone the wiki admits to a page without restrictions, and
admit every person a restriction names whom the wiki admits."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from integrations.wikispace_permissions import (
    Restriction,
    SpaceAccess,
    Unreadable,
    group_principal,
    page_readers,
)

PEOPLE = [f"acct-{n}" for n in range(6)]
GROUPS = [f"grp-{n}" for n in range(4)]


def email(account: str) -> str:
    return f"{account}@acme.test"


people = st.frozensets(st.sampled_from(PEOPLE))
groups = st.frozensets(st.sampled_from(GROUPS))
membership = st.fixed_dictionaries({account: groups for account in PEOPLE})
space = st.builds(SpaceAccess, everyone=st.booleans(), users=people, groups=groups)
levels = st.lists(st.builds(Restriction, users=people, groups=groups), min_size=1, max_size=4)


def wiki_admits(account: str, member_of: dict, space: SpaceAccess, levels: list[Restriction]) -> bool:
    mine = member_of[account]
    views = space.everyone or account in space.users or bool(mine & space.groups)
    restricted = [level for level in levels if level.restricted]
    return views and all(account in level.users or level.groups & mine for level in restricted)


def readers_admit(readers: tuple[str, ...], account: str, member_of: dict) -> bool:
    identities = {"everyone", f"user:{email(account)}"} | {group_principal(g) for g in member_of[account]}
    return bool(identities & set(readers))


@settings(max_examples=3000, deadline=None)
@given(member_of=membership, space=space, levels=levels)
def test_the_readers_of_a_page_never_admit_a_person_the_wiki_refuses(member_of, space, levels):
    asked = []

    def groups_of(account: str) -> frozenset[str]:
        asked.append(account)
        return member_of[account]

    readers = page_readers(levels, space, groups_of=groups_of, email_of=email)

    restricted = [level for level in levels if level.restricted]
    named = set().union(*(level.users for level in restricted))
    for account in PEOPLE:
        admitted, allowed = (
            readers_admit(readers, account, member_of),
            wiki_admits(account, member_of, space, levels),
        )
        assert not admitted or allowed, (account, readers)
        if allowed and (not restricted or account in named):
            assert admitted, (account, readers)
    assert len(asked) == len(set(asked)) <= len(named)  # at most one membership read per named user


def test_a_reader_whose_email_is_hidden_makes_the_readers_unreadable():
    level = Restriction(users=frozenset({"acct-1"}))
    with pytest.raises(Unreadable, match="acct-1"):
        page_readers(
            [level], SpaceAccess(everyone=True), groups_of=lambda a: frozenset(), email_of=lambda a: ""
        )


def test_a_person_the_restriction_names_without_space_access_is_not_a_reader():
    level = Restriction(users=frozenset({"acct-1", "acct-2"}))
    space = SpaceAccess(groups=frozenset({"staff"}))
    member_of = {"acct-1": frozenset({"staff"}), "acct-2": frozenset()}
    readers = page_readers([level], space, groups_of=member_of.__getitem__, email_of=email)
    assert readers == ("user:acct-1@acme.test",)
