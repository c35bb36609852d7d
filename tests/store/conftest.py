from tests.service.conftest import backend, postgresql

__all__ = ["backend", "postgresql"]
