"""Maps tools for reviews: read a place's reviews, write one (1 to 5 stars), delete your own."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_between, check_length, check_limit, next_id
from gym_mcp.servers.maps.models import Review
from gym_mcp.servers.maps.tools.common import kit, load_place, load_review, load_user, ratings, review_view


@kit.tool(
    write=False,
    intent="Show the reviews of place {place_id}[ rated at least {min_rating}][, at most {limit}]",
    samples={"min_rating": (2, 3, 4, 5)},
)
def list_reviews(db: Session, place_id: str, min_rating: int | None = None, limit: int = 10) -> dict[str, Any]:
    """List a place's reviews, newest first, with its average rating over all of them.

    Returns {place_id, name, rating, review_count, reviews}.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        place_id: Place id, e.g. "PLC-1001".
        min_rating: Only reviews with at least this many stars, 1 to 5, e.g. 4.
        limit: Maximum number of reviews to return, 1 to 100, e.g. 10.
    """
    check_limit(limit)
    place = load_place(db, place_id)
    stmt = select(Review).where(Review.place_id == place.id)
    if min_rating is not None:
        stmt = stmt.where(Review.rating >= check_between(min_rating, 1, 5, "min_rating"))
    rows = db.scalars(stmt.order_by(Review.posted_on.desc(), Review.id.desc()).limit(limit))
    avg, count = ratings(db, [place.id])[place.id]
    return {
        "place_id": place.id,
        "name": place.name,
        "rating": avg,
        "review_count": count,
        "reviews": [review_view(r) for r in rows],
    }


@kit.tool(
    write=True,
    intent="Have user {user_id} give place {place_id} {rating} stars with the review '{text}'",
    samples={
        "rating": (1, 2, 3, 4, 5),
        "text": (
            "Lovely spot, friendly staff.",
            "Too crowded at lunchtime.",
            "Great value and easy parking.",
            "Clean, quiet and well run.",
            "Slow service but good quality.",
        ),
    },
)
def write_review(db: Session, user_id: str, place_id: str, rating: int, text: str) -> dict[str, Any]:
    """Post a user's review of an existing place: 1 to 5 stars and a short text.

    A user reviews a place once; to change a review, delete it (delete_review) and write a new
    one. Returns the review and the place's new average rating.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        user_id: The reviewer, e.g. "USR-1001".
        place_id: The place reviewed, e.g. "PLC-1001".
        rating: Stars, a whole number from 1 to 5, e.g. 4.
        text: The review, 10 to 500 characters, e.g. "Lovely spot, friendly staff."
    """
    user = load_user(db, user_id)
    place = load_place(db, place_id)
    check_between(rating, 1, 5, "rating", end="; give whole stars, 1 (worst) to 5 (best).")
    body = check_length(text.strip(), "text", 10, 500, ", e.g. 'Lovely spot, friendly staff.'")
    mine = db.scalar(select(Review).where(Review.author_id == user.id, Review.place_id == place.id))
    if mine is not None:
        raise ToolError(
            f"{user.id} already reviewed {place.id} ({place.name}): {mine.id}, {mine.rating} stars on "
            f"{mine.posted_on}. A user reviews a place once; delete_review {mine.id} first to replace it."
        )
    review = Review(
        id=next_id(db, Review.id, "REV"),
        place_id=place.id,
        author_id=user.id,
        rating=rating,
        text=body,
        posted_on=kit.today,
    )
    db.add(review)
    db.flush()
    avg, count = ratings(db, [place.id])[place.id]
    return {**review_view(review), "place_rating": avg, "place_review_count": count}


@kit.tool(write=True, intent="Delete review {review_id} written by user {user_id}", confirm="always")
def delete_review(db: Session, review_id: str, user_id: str) -> dict[str, Any]:
    """Delete a review for good; only its author can delete it. Irreversible.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        review_id: Review id, e.g. "REV-1001".
        user_id: The user asking, who must be the review's author, e.g. "USR-1001".
    """
    review = load_review(db, review_id)
    user = load_user(db, user_id)
    if review.author_id != user.id:
        raise ToolError(
            f"Review {review.id} was written by {review.author_id}, not {user.id}; only its author can delete it."
        )
    place_id = review.place_id
    db.delete(review)
    db.flush()
    avg, count = ratings(db, [place_id])[place_id]
    return {"deleted_review_id": review.id, "place_id": place_id, "place_rating": avg, "place_review_count": count}
