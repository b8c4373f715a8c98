"""Shopping tools for the catalog: categories, product search and product details."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_limit, dollars
from gym_mcp.servers.shopping.models import Category, Product
from gym_mcp.servers.shopping.tools.common import MAX_LIMIT, kit, load_product

# Literal sample values for task synthesis.
_CATEGORIES = (
    "Electronics",
    "Home & Kitchen",
    "Books",
    "Clothing",
    "Sports & Outdoors",
    "Toys & Games",
    "Beauty & Personal Care",
    "Grocery",
)
_QUERIES = ("bluetooth speaker", "coffee", "yoga", "backpack", "puzzle", "tent", "kettle", "honey")


def _product_summary(product: Product) -> dict[str, Any]:
    """The fields of a product a search result needs."""
    return {
        "product_id": product.id,
        "name": product.name,
        "category": product.category.name,
        "price": dollars(product.price_cents),
        "stock": product.stock,
    }


@kit.tool(write=False, intent="List the product categories")
def list_categories(db: Session) -> list[dict[str, Any]]:
    """List the product categories with how many products each holds.

    Use it to learn the exact category names search_products accepts.
    Returns a list of {"category", "product_count"}.
    """
    rows = db.execute(
        select(Category.name, func.count(Product.id))
        .join(Product, Product.category_id == Category.id, isouter=True)
        .group_by(Category.id)
        .order_by(Category.name)
    )
    return [{"category": name, "product_count": count} for name, count in rows]


@kit.tool(
    write=False,
    intent=(
        "Search the catalog for products[ matching '{query}'][ in category {category}]"
        "[ priced at most ${max_price}][, showing up to {limit} results]"
    ),
    samples={
        "query": _QUERIES,
        "category": _CATEGORIES,
        "max_price": (15, 25, 40, 50, 75, 100, 150),
    },
)
def search_products(
    db: Session,
    query: str = "",
    category: str | None = None,
    max_price: float | None = None,
    in_stock_only: bool = False,
    limit: int = 10,
) -> dict[str, Any]:
    """Search the catalog by words in the name, brand or description, category and price.

    Every word of the query must match. Results are sorted by price, cheapest first.
    Returns {"total": number of matches, "products": [{"product_id", "name", "category",
    "price", "stock"}]}; stock 0 means out of stock.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        query: Words to look for, e.g. "wireless earbuds"; empty matches every product.
        category: Exact category name from list_categories, e.g. "Electronics"; omit for all.
        max_price: Highest unit price in dollars, e.g. 49.99; omit for no limit.
        in_stock_only: True to leave out products with no stock.
        limit: Maximum number of products to return, 1 to 50.
    """
    check_limit(limit, MAX_LIMIT)
    stmt = select(Product).join(Product.category)
    for word in query.split():
        stmt = stmt.where(
            or_(
                Product.name.icontains(word, autoescape=True),
                Product.brand.icontains(word, autoescape=True),
                Product.description.icontains(word, autoescape=True),
            )
        )
    if category is not None and category.strip():
        found = db.scalar(select(Category).where(func.lower(Category.name) == category.strip().lower()))
        if found is None:
            names = ", ".join(db.scalars(select(Category.name).order_by(Category.name)))
            raise ToolError(f'Unknown category "{category}". Valid categories: {names}.')
        stmt = stmt.where(Product.category_id == found.id)
    if max_price is not None:
        if max_price <= 0:
            raise ToolError(f"max_price must be a positive amount in dollars, e.g. 49.99; got {max_price}.")
        stmt = stmt.where(Product.price_cents <= round(max_price * 100))
    if in_stock_only:
        stmt = stmt.where(Product.stock > 0)
    total = db.scalar(select(func.count()).select_from(stmt.subquery())) or 0
    products = db.scalars(stmt.order_by(Product.price_cents, Product.id).limit(limit))
    return {"total": total, "products": [_product_summary(p) for p in products]}


@kit.tool(write=False, intent="Show the details of product {product_id}")
def get_product(db: Session, product_id: str) -> dict[str, Any]:
    """Get one product's full details: name, brand, category, description, price, stock, rating.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        product_id: Product id, e.g. "PRD-1001".
    """
    product = load_product(db, product_id)
    return {
        **_product_summary(product),
        "brand": product.brand,
        "description": product.description,
        "rating": product.rating / 10,
    }
