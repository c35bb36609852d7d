from tests.service.conftest import backend

__all__ = ["backend"]
