"""The maps server, driven through a real MCP client on an in-memory database: reviews."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import dump, one, scalar


def test_list_reviews(maps: LiveServer) -> None:
    place = scalar(maps, "SELECT place_id FROM reviews GROUP BY place_id HAVING count(*) >= 4 ORDER BY 1")
    out = maps.ok("list_reviews", place_id=place, limit=100)
    rows = maps.query("SELECT id, rating FROM reviews WHERE place_id = ?", place)
    assert out["review_count"] == len(rows) == len(out["reviews"])
    assert out["rating"] == round(sum(r[1] for r in rows) / len(rows), 1)
    dates = [r["posted_on"] for r in out["reviews"]]
    assert dates == sorted(dates, reverse=True)
    good = maps.ok("list_reviews", place_id=place, min_rating=4)["reviews"]
    assert len(good) == sum(r[1] >= 4 for r in rows)
    assert len(maps.ok("list_reviews", place_id=place, limit=2)["reviews"]) == 2
    assert "min_rating must be between 1 and 5" in maps.error("list_reviews", place_id=place, min_rating=6)
    assert "search_places" in maps.error("list_reviews", place_id="PLC-0000")


def test_write_review(maps: LiveServer) -> None:
    user, place = one(
        maps,
        """SELECT u.id, p.id FROM users u, places p WHERE NOT EXISTS (SELECT 1 FROM reviews r
           WHERE r.author_id = u.id AND r.place_id = p.id) AND p.id IN (SELECT place_id FROM reviews) ORDER BY u.id, p.id""",
    )
    ratings = [r[0] for r in maps.query("SELECT rating FROM reviews WHERE place_id = ?", place)]
    out = maps.ok("write_review", user_id=user, place_id=place, rating=5, text="  Lovely spot, friendly staff. ")
    assert out["text"] == "Lovely spot, friendly staff."
    assert out["place_review_count"] == len(ratings) + 1
    assert out["place_rating"] == round((sum(ratings) + 5) / (len(ratings) + 1), 1)
    assert one(maps, "SELECT author_id, place_id, rating, posted_on FROM reviews WHERE id = ?", out["review_id"]) == (
        user,
        place,
        5,
        "2026-01-15",
    )
    state = dump(maps)
    err = maps.error("write_review", user_id=user, place_id=place, rating=4, text="Changed my mind about it.")
    assert out["review_id"] in err
    assert "delete_review" in err
    other = scalar(maps, "SELECT id FROM places WHERE id != ? ORDER BY id", place)
    assert "rating must be between 1 and 5" in maps.error(
        "write_review", user_id=user, place_id=other, rating=0, text="Not good at all."
    )
    assert "rating must be between 1 and 5" in maps.error(
        "write_review", user_id=user, place_id=other, rating=6, text="Best place ever!"
    )
    assert "text must be 10 to 500" in maps.error("write_review", user_id=user, place_id=other, rating=3, text="ok")
    assert "search_places" in maps.error(
        "write_review", user_id=user, place_id="PLC-9999", rating=3, text="Nice enough place."
    )
    assert dump(maps) == state


def test_delete_review(maps: LiveServer) -> None:
    review, author, place = one(maps, "SELECT id, author_id, place_id FROM reviews ORDER BY id")
    stranger = scalar(maps, "SELECT id FROM users WHERE id != ? ORDER BY id", author)
    state = dump(maps)
    err = maps.error("delete_review", review_id=review, user_id=stranger)
    assert f"written by {author}" in err
    assert "only its author" in err
    assert "list_reviews" in maps.error("delete_review", review_id="REV-0001", user_id=author)
    assert dump(maps) == state
    out = maps.ok("delete_review", review_id=review, user_id=author)
    assert (out["deleted_review_id"], out["place_id"]) == (review, place)
    assert out["place_review_count"] == scalar(maps, "SELECT count(*) FROM reviews WHERE place_id = ?", place)
    assert maps.query("SELECT id FROM reviews WHERE id = ?", review) == []
    assert "REV-" in maps.error("delete_review", review_id=review, user_id=author)
