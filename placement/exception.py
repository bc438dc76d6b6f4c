"""Domain exceptions raised by the operations layer.

No HTTP status codes here: handlers and dispatch translate. A leaf module.
"""


class PlacementException(Exception):
    """Base class; ``msg_fmt`` is formatted with the keyword arguments."""

    msg_fmt = 'An unknown exception occurred.'

    def __init__(self, message=None, **kwargs):
        self.kwargs = kwargs
        if message is None:
            try:
                message = self.msg_fmt % kwargs
            except (KeyError, TypeError):
                message = self.msg_fmt
        self.message = message
        super().__init__(message)

    def __str__(self):
        return self.message


class NotFound(PlacementException):
    msg_fmt = 'Resource could not be found.'


class Exists(PlacementException):
    msg_fmt = 'Resource already exists.'


class Conflict(PlacementException):
    msg_fmt = 'Conflict.'


class InvalidInput(PlacementException):
    """The request is well formed but names or asks for something invalid."""
    msg_fmt = 'Invalid input.'


class ResourceProviderNotFound(NotFound):
    msg_fmt = 'No resource provider with uuid %(uuid)s found'


class ResourceClassNotFound(NotFound):
    msg_fmt = 'No such resource class %(name)s.'


class TraitNotFound(NotFound):
    msg_fmt = 'No such trait(s): %(names)s.'


class InventoryNotFound(NotFound):
    msg_fmt = 'No inventory of class %(resource_class)s for %(uuid)s'


class ConsumerNotFound(NotFound):
    msg_fmt = 'No consumer with uuid %(uuid)s found.'


class ConcurrentUpdateDetected(PlacementException):
    msg_fmt = ('Another thread concurrently updated the data. '
               'Please retry your update')


class ConsumerGenerationConflict(ConcurrentUpdateDetected):
    msg_fmt = 'consumer generation conflict - %(detail)s'


class ResourceProviderGenerationConflict(ConcurrentUpdateDetected):
    msg_fmt = 'resource provider generation conflict'


class DuplicateName(Exists):
    msg_fmt = ('Conflicting resource provider %(field)s: %(value)s '
               'already exists.')


class ResourceClassExists(Exists):
    msg_fmt = 'Resource class %(name)s already exists.'


class TraitExists(Exists):
    msg_fmt = 'The Trait %(name)s already exists'


class ResourceClassInUse(Conflict):
    msg_fmt = ('Cannot delete resource class %(name)s. Class is in use in '
               'inventory.')


class TraitInUse(Conflict):
    msg_fmt = 'The trait %(name)s is in use by a resource provider.'


class TraitCannotDeleteStandard(InvalidInput):
    msg_fmt = 'Cannot delete standard trait %(name)s.'


class CannotDeleteParentResourceProvider(Conflict):
    msg_fmt = ('Unable to delete parent resource provider %(uuid)s: '
               'It has child resource providers.')


class ResourceProviderInUse(Conflict):
    msg_fmt = ('Unable to delete resource provider %(uuid)s: '
               'Resource provider has allocations.')


class InventoryExists(Exists):
    msg_fmt = ("Inventory for '%(resource_class)s' on resource provider "
               "'%(uuid)s' already exists.")


class ResourceClassCannotUpdateStandard(InvalidInput):
    msg_fmt = 'Cannot update standard resource class %(name)s'


class ResourceClassCannotDeleteStandard(InvalidInput):
    msg_fmt = 'Cannot delete standard resource class %(name)s.'


class InventoryInUse(Conflict):
    msg_fmt = ("Inventory for '%(resource_classes)s' on resource provider "
               "'%(uuid)s' in use.")


class InvalidInventory(InvalidInput):
    msg_fmt = ("Inventory for '%(resource_class)s' on resource provider "
               "'%(uuid)s' invalid.")


class InvalidInventoryCapacity(InvalidInventory):
    msg_fmt = ("Invalid inventory for '%(resource_class)s' on resource "
               "provider '%(uuid)s'. The reserved value is greater than or "
               "equal to total.")


class InvalidInventoryCapacityReservedCanBeTotal(InvalidInventory):
    msg_fmt = ("Invalid inventory for '%(resource_class)s' on resource "
               "provider '%(uuid)s'. The reserved value is greater than "
               "total.")


class InsufficientCapacity(Conflict):
    """An allocation write does not fit (capacity or unit constraints)."""
    msg_fmt = 'Unable to allocate inventory: %(detail)s'


class ObjectActionError(PlacementException):
    msg_fmt = 'Object action %(action)s failed because: %(reason)s'


class PolicyNotAuthorized(PlacementException):
    msg_fmt = 'Policy does not allow %(action)s to be performed.'


class ConfigError(PlacementException):
    msg_fmt = 'Configuration error: %(reason)s'


class AllocationProviderNotFound(InvalidInput):
    """An allocation names a resource provider that does not exist."""
    msg_fmt = ("Allocation for resource provider '%(uuid)s' that does not "
               "exist.")


class DatabaseUnavailable(PlacementException):
    """No database node could serve the operation within its budget.

    ``retry_after`` is the number of seconds a client should wait.
    """
    msg_fmt = ('No database server could serve this request in time; '
               'please retry later.')

    def __init__(self, message=None, reason='', retry_after=5, **kwargs):
        super().__init__(message, **kwargs)
        self.reason = reason
        self.retry_after = retry_after


class CommitOutcomeUnknown(DatabaseUnavailable):
    """A write's connection was lost during its COMMIT, and no database
    node could tell within the budget whether the write took effect (a
    host whose one node froze with the COMMIT in hand): it may have.
    """
    msg_fmt = ('The connection to the database was lost while this write '
               'was being committed, and no database server could tell in '
               'time whether it took effect; read the current state '
               'before retrying.')
